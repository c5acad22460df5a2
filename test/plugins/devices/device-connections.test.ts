/** A device's connections (lan, cira): one device per UUID whoever finds it, and `online` follows all of them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../core/store/level-store.js';
import { openDeviceRegistry } from '../../../plugins/devices/registry/device-registry.js';

const UUID = '9c2f1e4a-0b7d-4c11-8e3f-5a6b7c8d9e0f';

async function withRegistry(run: (registry: Awaited<ReturnType<typeof openDeviceRegistry>>, reopen: () => ReturnType<typeof openDeviceRegistry>) => Promise<void>) {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-connections-'));
  const store = await openStore(dir);
  try {
    await run(await openDeviceRegistry(store.namespace('devices')), () => openDeviceRegistry(store.namespace('devices')));
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

test('a tunnel of an unknown UUID creates the device; a scan of the same UUID joins it, never duplicates', async () => {
  await withRegistry(async (registry, reopen) => {
    const first = await registry.setConnection({ uuid: UUID.toUpperCase(), ipAddress: '127.50.0.9' }, 'cira', true);
    assert.equal(first.created, true);
    assert.equal(first.onlineChanged, true);
    assert.deepEqual(first.device!.connections, ['cira']);
    assert.equal(first.device!.online, true);
    assert.equal(first.device!.uuid, UUID, 'stored lower case, as scans store it');

    const scanned = await registry.record(
      { ipAddress: '127.50.0.9', hostname: 'h', firmwareVersion: '16.1.27.2225', provisioningState: 'POST', uuid: UUID, tls: false, openPorts: [16992], authStatus: 'ok' },
      'scan-1',
    );
    assert.equal(scanned.created, false);
    assert.equal(scanned.device.id, first.device!.id);
    assert.deepEqual(scanned.device.connections, ['lan', 'cira']);
    assert.equal(registry.count(), 1);
    assert.deepEqual((await reopen()).get(first.device!.id)!.connections, ['lan', 'cira']);
  });
});

test('online stays true while any connection remains, and flips only when the last one goes', async () => {
  await withRegistry(async (registry) => {
    const { device } = await registry.setConnection({ uuid: UUID, ipAddress: '127.50.0.10' }, 'cira', true);
    const id = device!.id;
    // The LAN monitor reports through `online` alone.
    let next = await registry.update(id, { online: true });
    assert.deepEqual(next!.connections, ['lan', 'cira']);
    next = await registry.update(id, { online: false });
    assert.deepEqual(next!.connections, ['cira']);
    assert.equal(next!.online, true, 'the tunnel keeps it online');

    const down = await registry.setConnection({ uuid: UUID, ipAddress: '127.50.0.10' }, 'cira', false);
    assert.equal(down.onlineChanged, true);
    assert.deepEqual(down.device!.connections, []);
    assert.equal(down.device!.online, false);
    assert.equal(registry.list({ online: false }).length, 1);

    const unknown = await registry.setConnection({ uuid: '00000000-0000-4000-8000-000000000000', ipAddress: '127.50.0.11' }, 'cira', false);
    assert.equal(unknown.device, undefined, 'clearing a tunnel of an unknown UUID creates nothing');
    assert.equal(registry.count(), 1);
  });
});

test('a device stored before connections existed reads as reached on the LAN while online', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-connections-'));
  const store = await openStore(dir);
  try {
    const registry = await openDeviceRegistry(store.namespace('devices'));
    const { device } = await registry.setConnection({ uuid: UUID, ipAddress: '127.50.0.12' }, 'cira', true);
    const { connections: _dropped, ...old } = device!;
    await store.namespace('devices').put(device!.id, { ...old, online: true });
    const reopened = await openDeviceRegistry(store.namespace('devices'));
    assert.equal(reopened.get(device!.id)!.connections, undefined);
    const up = await reopened.setConnection({ uuid: UUID, ipAddress: '127.50.0.12' }, 'cira', true);
    assert.deepEqual(up.device!.connections, ['lan', 'cira']);
    assert.equal(up.onlineChanged, false);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
