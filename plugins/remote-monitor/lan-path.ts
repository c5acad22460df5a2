import type { Device } from 'amt-gateway/devices';

/** The device is reached on the local network (records written before `connections`: while online). */
export function onLan(device: Readonly<Device>): boolean {
  return device.connections ? device.connections.includes('lan') : device.online;
}
