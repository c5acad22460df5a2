/**
 * Which sign-in memory a device's sign-ins count against. AMT counts failed logins per device, so
 * the key names the device, whichever way the I/O reaches it: by UUID once it is known, so that a
 * device reached both on the local network and through its CIRA tunnel has one budget, not one per
 * path; through a tunnel without a UUID, the device record (devices behind one NAT address share
 * that address but not their lockout counters); otherwise its address (all a scan knows of a device
 * it has not read yet; a UUID is only learned by signing in, which resets the device's counter).
 */
import type { Device } from '../api.js';
import type { SignInMemory } from './sign-in-memory.js';

type KeyedDevice = Readonly<Pick<Device, 'id' | 'uuid' | 'connections'>>;

/** Reached only through its CIRA tunnel: its address is a NAT's that other devices may share. */
export const tunnelOnly = (device: KeyedDevice): boolean => device.connections?.length === 1 && device.connections[0] === 'cira';

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

/**
 * {@link signInKey}, after carrying what the memory kept under the device's own address over to the
 * device's key: the first use after its UUID became known keeps its refusals and failures in a row.
 */
export function memoryKey(memory: SignInMemory, device: KeyedDevice & { ipAddress: string } | undefined, address: string, routed: boolean): string {
  const key = signInKey(device, address, routed);
  if (device && key !== device.ipAddress && !tunnelOnly(device)) memory.adopt(device.ipAddress, key);
  return key;
}

/** The key of the memory that applies to the device now. */
export function currentSignInKey(memory: SignInMemory, device: Readonly<Device>): string {
  return memoryKey(memory, device, device.ipAddress, device.connections?.includes('cira') ?? false);
}

const uuidKey = (uuid: string) => `uuid:${uuid.toLowerCase()}`;
