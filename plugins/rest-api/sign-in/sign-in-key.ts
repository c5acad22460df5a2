/**
 * Which sign-in memory a device's sign-ins count against. AMT counts failed logins per device, so
 * the key names the device the I/O reaches: on the local network, its address (what a scan knows
 * before it knows the device); through a route (its CIRA tunnel), the device itself, by UUID, since
 * devices behind one NAT address share that address but not their lockout counters.
 */
import type { Device } from '../api.js';

export function routedSignInKey(device: Readonly<Pick<Device, 'id' | 'uuid'>>): string {
  return device.uuid ? `uuid:${device.uuid.toLowerCase()}` : `device:${device.id}`;
}

/** The key of the memory that applies to the device now: routed while it has a tunnel, else its address. */
export function currentSignInKey(device: Readonly<Device>): string {
  return device.connections?.includes('cira') ? routedSignInKey(device) : device.ipAddress;
}
