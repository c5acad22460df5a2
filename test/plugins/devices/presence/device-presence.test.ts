/**
 * The presence module on a real LevelDB and the real event bus: every write that flips a device's
 * `online` (a path's report, a scan's record, a patch) is one DeviceStatusChanged, and a write that
 * leaves it as it was is none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../../core/store/level-store.js';
import { createEventBus } from '../../../../core/events/event-bus.js';
import { createLogger } from '../../../../core/log/logger.js';
import { openDeviceRegistry } from '../../../../plugins/devices/registry/device-registry.js';
import { createDevicePresence } from '../../../../plugins/devices/presence/device-presence.js';
import type { DeviceStatusChangedEvent } from '../../../../plugins/remote-monitor/api.js';

const UUID = '6c2b1c1e-0000-4000-8000-000000000001';

test('each flip of online, from any path or writer, is published once; writes that keep it publish nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-presence-'));
  const store = await openStore(dir);
  try {
    const registry = await openDeviceRegistry(store.namespace('devices'));
    const events = createEventBus(createLogger({ level: 'error', write: () => undefined }));
    const seen: DeviceStatusChangedEvent[] = [];
    events.subscribe('DeviceStatusChanged', (e) => void seen.push(e));
    const presence = createDevicePresence(registry, events);
    const said = () => seen.map((e) => e.online);

    // A tunnel names an unknown UUID: a device, offline until the tunnel is up.
    const { device: adopted, created } = await presence.adopt({ uuid: UUID, ipAddress: '127.0.0.9' });
    assert.equal(created, true);
    assert.deepEqual([adopted.online, adopted.connections], [false, []]);
    assert.deepEqual(said(), []);
    assert.equal((await presence.adopt({ uuid: UUID.toUpperCase(), ipAddress: '127.0.0.10' })).device.id, adopted.id, 'the same UUID is the same device');

    const id = adopted.id;
    await presence.report({ uuid: UUID, ipAddress: '127.0.0.9' }, 'cira', true);
    assert.deepEqual(said(), [true]);
    assert.equal(seen[0]!.deviceId, id);
    assert.equal(seen[0]!.lastSeen, registry.get(id)!.lastSeen);

    // The LAN joins and leaves: still online, nothing to publish.
    await presence.report({ deviceId: id }, 'lan', true);
    assert.deepEqual(registry.get(id)!.connections, ['lan', 'cira']);
    await presence.report({ deviceId: id }, 'lan', false);
    assert.deepEqual(said(), [true]);

    // The tunnel drops: offline, once; dropping it again changes nothing.
    await presence.report({ deviceId: id }, 'cira', false);
    await presence.report({ deviceId: id }, 'cira', false);
    assert.deepEqual(said(), [true, false]);
    assert.deepEqual([registry.get(id)!.online, registry.get(id)!.connections], [false, []]);

    // A scan finding it answering, and the older `online` patch, are flips like any other.
    await registry.record({ ipAddress: '127.0.0.9', hostname: 'h', firmwareVersion: null, provisioningState: null, uuid: UUID, tls: false, openPorts: [16992], authStatus: 'ok' }, 'scan-1');
    assert.deepEqual(said(), [true, false, true]);
    await registry.update(id, { online: false });
    assert.deepEqual(said(), [true, false, true, false]);
    await registry.update(id, { hostname: 'renamed' });
    assert.deepEqual(said(), [true, false, true, false], 'a patch that keeps online publishes nothing');

    // Reporting on an unknown device id creates nothing.
    assert.deepEqual(await presence.report({ deviceId: 'no-such-device' }, 'lan', true), { device: undefined, onlineChanged: false });
    assert.equal(registry.count(), 1);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
