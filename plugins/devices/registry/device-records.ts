/** How the registry keys, orders, filters and first makes devices. */
import { randomUUID } from 'node:crypto';
import type { Device, DeviceConnection, DeviceFilter } from '../api.js';

/** An IPv4 address as a number, for ordering. */
export function ipKey(ip: string): number {
  let key = 0;
  let octet = 0;
  for (let i = 0; i < ip.length; i++) {
    const c = ip.charCodeAt(i);
    if (c === 46) {
      key = key * 256 + octet;
      octet = 0;
    } else octet = octet * 10 + c - 48;
  }
  return key * 256 + octet;
}

const INDEX_SPAN = 2 ** 20;

/** A device known only by the UUID a tunnel named, at the address the tunnel came from. */
export function namedByUuid(uuid: string, ipAddress: string, connections: DeviceConnection[], now: string): Device {
  return {
    id: randomUUID(),
    ipAddress,
    hostname: null,
    domain: null,
    firmwareVersion: null,
    provisioningState: null,
    provisioningMode: null,
    uuid: uuid.toLowerCase(),
    tls: false,
    tlsFingerprint: null,
    openPorts: [],
    authStatus: 'unreachable',
    credentialId: null,
    online: connections.length > 0,
    connections,
    firstSeen: now,
    lastSeen: now,
    lastScanId: null,
  };
}

/** Devices in address order. */
export function sortByAddress(devices: Device[], keyOf: (device: Device) => number): Device[] {
  if (devices.length > INDEX_SPAN) return devices.sort((a, b) => keyOf(a) - keyOf(b));
  // key × 2^20 + position stays below 2^52, exact in a double, and a typed array sorts it natively:
  // a tenth of the time of a comparator sort at 100,000 devices.
  const packed = new Float64Array(devices.length);
  for (let i = 0; i < devices.length; i++) packed[i] = keyOf(devices[i]!) * INDEX_SPAN + i;
  packed.sort();
  return Array.from(packed, (value) => devices[value % INDEX_SPAN]!);
}

export function matches(device: Device, filter: DeviceFilter): boolean {
  if (filter.provisioningState !== undefined && device.provisioningState !== filter.provisioningState) return false;
  if (filter.online !== undefined && device.online !== filter.online) return false;
  if (filter.q) {
    const q = filter.q.toLowerCase();
    if (!device.ipAddress.includes(q) && !(device.hostname ?? '').toLowerCase().includes(q)) return false;
  }
  return true;
}
