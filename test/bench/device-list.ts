/** Reads the gateway's device list and judges which devices were fully read. */
import type { Device } from '../../plugins/rest-api/api.js';
import type { GatewayClient } from './gateway-client.js';

/** Signed in, and firmware version, provisioning state and hostname all known. */
export function fullyRead(device: Device): boolean {
  return device.authStatus === 'ok' && device.firmwareVersion !== null && device.provisioningState !== null && device.hostname !== null;
}

export async function listDevices(client: GatewayClient): Promise<Device[]> {
  return client.json<Device[]>('GET', '/api/devices');
}
