import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../core/store/level-store.js';
import { openDeviceRegistry, type DeviceObservation } from '../../../plugins/rest-api/devices/device-registry.js';

const observation = (ipAddress: string, uuid: string | null = null): DeviceObservation => ({
  ipAddress,
  hostname: `host-${ipAddress}`,
  firmwareVersion: '16.1.25.2049',
  provisioningState: 'POST',
  uuid,
  tls: false,
  openPorts: [16992],
  authStatus: 'ok',
});

test('the device list stays in address order through inserts, in-place updates, moves and deletes, and survives a reopen', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-registry-'));
  const store = await openStore(dir);
  try {
    const registry = await openDeviceRegistry(store.namespace('devices'));
    const order = () => registry.list().map((d) => d.ipAddress);
    for (const ip of ['10.0.0.20', '10.0.0.3', '10.0.1.1', '10.0.0.100']) await registry.record(observation(ip), 'scan-1');
    assert.deepEqual(order(), ['10.0.0.3', '10.0.0.20', '10.0.0.100', '10.0.1.1'], 'numeric, not string, order');
    const d20 = registry.findByAddress('10.0.0.20')!;
    await registry.update(d20.id, { online: false });
    assert.deepEqual(order(), ['10.0.0.3', '10.0.0.20', '10.0.0.100', '10.0.1.1']);
    assert.equal(registry.list()[1]!.online, false, 'an in-place update is visible in the list');
    const moved = await registry.record(observation('10.0.0.1', 'uuid-a'), 'scan-2');
    await registry.record(observation('10.0.0.250', 'uuid-a'), 'scan-3');
    assert.equal(registry.get(moved.device.id)!.ipAddress, '10.0.0.250', 'same UUID: the device moved, no duplicate');
    assert.deepEqual(order(), ['10.0.0.3', '10.0.0.20', '10.0.0.100', '10.0.0.250', '10.0.1.1']);
    assert.deepEqual(registry.list({ online: false }).map((d) => d.ipAddress), ['10.0.0.20']);
    await registry.delete(registry.findByAddress('10.0.0.100')!.id);
    assert.deepEqual(order(), ['10.0.0.3', '10.0.0.20', '10.0.0.250', '10.0.1.1']);
    const reopened = await openDeviceRegistry(store.namespace('devices'));
    assert.deepEqual(reopened.list().map((d) => d.ipAddress), order());
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
