/** How the paths of a device make up its `connections` (and so its `online`: while not empty). */
import type { Device, DeviceConnection } from '../api.js';

/** A device's connections (records written before there were any: `lan` while online). */
export function connectionsOf(device: Readonly<Device> | undefined): DeviceConnection[] {
  if (!device) return [];
  return device.connections ?? (device.online ? ['lan'] : []);
}

/** `connections` with `path` set or cleared, in a fixed order. */
export function withConnection(current: readonly DeviceConnection[], path: DeviceConnection, up: boolean): DeviceConnection[] {
  const set = new Set(current);
  if (up) set.add(path);
  else set.delete(path);
  return (['lan', 'cira'] as const).filter((k) => set.has(k));
}
