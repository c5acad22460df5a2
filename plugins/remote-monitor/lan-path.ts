import type { Device } from '../../core/plugin-api.js';

/** The device is reached on the local network (records written before `connections`: while online). */
export function onLan(device: Readonly<Device>): boolean {
  return device.connections ? device.connections.includes('lan') : device.online;
}
