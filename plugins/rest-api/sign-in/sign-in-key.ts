/**
 * Which sign-in memory a device's sign-ins count against. AMT counts failed logins per device, so
 * the key names the device, whichever way the I/O reaches it: by UUID once it is known, so that a
 * device reached both on the local network and through its CIRA tunnel has one budget, not one per
 * path; through a tunnel without a UUID, the device record (devices behind one NAT address share
 * that address but not their lockout counters); otherwise its address (all a scan knows of a device
 * it has not read yet; a UUID is only learned by signing in, which resets the device's counter).
 */
import type { Device } from '../api.js';

type KeyedDevice = Readonly<Pick<Device, 'id' | 'uuid' | 'connections'>>;

const tunnelOnly = (device: KeyedDevice) => device.connections?.length === 1 && device.connections[0] === 'cira';

/**
 * @param device the stored device at `address`, if any
 * @param routed whether the I/O goes through the device's tunnel rather than to `address`
 */
export function signInKey(device: KeyedDevice | undefined, address: string, routed: boolean): string {
  if (routed && device) return device.uuid ? uuidKey(device.uuid) : `device:${device.id}`;
  // A tunnel-only device's address is its NAT's: a device found there on the LAN is another machine.
  if (device?.uuid && !tunnelOnly(device)) return uuidKey(device.uuid);
  return address;
}

/** The key of the memory that applies to the device now. */
export function currentSignInKey(device: Readonly<Device>): string {
  return signInKey(device, device.ipAddress, device.connections?.includes('cira') ?? false);
}

const uuidKey = (uuid: string) => `uuid:${uuid.toLowerCase()}`;
