/**
 * Writes devices straight into a data directory's LevelDB, where the rest-api plugin keeps them
 * (namespace `plugin:rest-api`, then `devices`), before a gateway is started on it.
 */
import { randomUUID } from 'node:crypto';
import { openStore } from '../../core/store/level-store.js';
import type { Device } from '../../plugins/rest-api/api.js';
import { fleetAddresses } from '../sim/address-range.js';

/** Seeded devices take consecutive addresses from here on (inside the benchmarks' 127.200.0.0/14). */
const SEED_BASE = '127.200.0.1';
const FIRMWARE = ['11.8.94.3811', '12.0.67.1579', '15.0.23.1706', '16.1.27.2225', '18.0.5.2066'];

export function seededDevice(index: number, address: string, now: string): Device {
  const hex = index.toString(16).padStart(12, '0');
  return {
    id: randomUUID(),
    ipAddress: address,
    hostname: `bench-${String(index + 1).padStart(6, '0')}`,
    domain: 'bench.example',
    firmwareVersion: FIRMWARE[index % FIRMWARE.length]!,
    provisioningState: 'POST',
    provisioningMode: index % 2 ? 'CCM' : 'ACM',
    uuid: `4c4c4544-0000-1000-8000-${hex}`,
    tls: false,
    tlsFingerprint: null,
    openPorts: [16992, 16623],
    authStatus: 'ok',
    credentialId: null,
    online: true,
    firstSeen: now,
    lastSeen: now,
    lastScanId: null,
  };
}

/** Stores `count` devices (all online) and returns them. */
export async function seedDevices(dataDir: string, count: number): Promise<Device[]> {
  const store = await openStore(dataDir);
  const devices: Device[] = [];
  try {
    const ns = store.namespace('plugin:rest-api').namespace('devices');
    const now = new Date().toISOString();
    const addresses = fleetAddresses(SEED_BASE, count);
    for (let i = 0; i < count; i += 1000) {
      const chunk = addresses.slice(i, i + 1000).map((address, j) => seededDevice(i + j, address, now));
      await ns.batch(chunk.map((d) => ({ type: 'put' as const, key: d.id, value: d })));
      devices.push(...chunk);
    }
  } finally {
    await store.close();
  }
  return devices;
}
