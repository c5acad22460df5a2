import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../core/store/level-store.js';
import { openDeviceRegistry, type DeviceObservation } from '../../../plugins/devices/registry/device-registry.js';
import type { Device } from '../../../plugins/devices/api.js';

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

test('encoded pages equal the JSON of the listed devices across block edges, after updates, inserts and deletes', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-registry-'));
  const store = await openStore(dir);
  try {
    const registry = await openDeviceRegistry(store.namespace('devices'));
    for (let i = 0; i < 300; i++) await registry.record(observation(`10.1.${i >> 8}.${i & 255}`), 'scan-1');
    const expected = (start: number, end: number) => JSON.stringify(registry.list().slice(start, end));
    const pages: Array<[number, number]> = [[0, 10], [60, 70], [63, 65], [0, 300], [100, 228], [250, 400], [299, 300], [300, 310], [5, 5]];
    const check = (when: string) => {
      for (const [start, end] of pages) assert.equal(Buffer.concat(registry.encodedPage(start, end)).toString(), expected(start, end), `${when}: [${start}, ${end})`);
    };
    check('fresh');
    const d = registry.findByAddress('10.1.0.64')!;
    await registry.update(d.id, { hostname: 'höst-ünïcode-名前' });
    check('after an in-place update with multi-byte text');
    JSON.parse(Buffer.concat(registry.encodedPage(60, 70)).toString());
    await registry.record(observation('10.0.255.1'), 'scan-2');
    await registry.record(observation('9.0.0.1'), 'scan-2');
    check('after inserts that shift every position');
    await registry.delete(registry.findByAddress('10.1.1.0')!.id);
    for (let i = 0; i < 200; i++) await registry.delete(registry.list()[0]!.id);
    check('after deletes that shrink the list');
    assert.equal(Buffer.concat(registry.encodedPage(0, 1000)).toString(), JSON.stringify(registry.list()));
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('2,000 devices in scattered addresses are listed in numeric address order', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-registry-'));
  const store = await openStore(dir);
  try {
    const registry = await openDeviceRegistry(store.namespace('devices'));
    const addresses = Array.from({ length: 2000 }, (_, i) => `${1 + (i % 223)}.${(i * 7) % 256}.${(i * 13) % 256}.${i % 256}`);
    for (const ip of addresses) await registry.record(observation(ip), 'scan-1');
    const key = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
    const listed = registry.list().map((d) => d.ipAddress);
    assert.deepEqual(listed, [...new Set(addresses)].sort((a, b) => key(a) - key(b)));
    assert.equal(registry.list()[0]!.ipAddress, '1.0.0.0');
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('what the registry hands out is frozen: a plugin changing a device or the list cannot change what is served', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-registry-'));
  const store = await openStore(dir);
  try {
    const registry = await openDeviceRegistry(store.namespace('devices'));
    for (const ip of ['10.0.0.3', '10.0.0.1', '10.0.0.2']) await registry.record(observation(ip), 'scan-1');
    const served = () => Buffer.concat(registry.encodedPage(0, 10)).toString();
    const before = served();
    const list = registry.list() as Device[];
    const first = registry.get(list[0]!.id) as Device;
    // ES modules run in strict mode: every write to a frozen object throws.
    assert.throws(() => list.reverse(), TypeError);
    assert.throws(() => list.push({ ...first, id: 'intruder' }), TypeError);
    assert.throws(() => (first.ipAddress = '10.0.0.99'), TypeError);
    assert.throws(() => first.openPorts.push(1), TypeError);
    const filtered = registry.list({ online: true }) as Device[];
    assert.throws(() => filtered.sort(() => -1), TypeError);
    assert.equal(served(), before, 'the encoded pages are unchanged');
    assert.deepEqual(registry.list().map((d) => d.ipAddress), ['10.0.0.1', '10.0.0.2', '10.0.0.3'], 'the order is unchanged');
    assert.equal(JSON.stringify(registry.list()), before);

    const updated = await registry.update(first.id, { hostname: 'renamed' });
    assert.ok(Object.isFrozen(updated) && updated !== first, 'an update replaces the device with a new frozen one');
    assert.equal(first.hostname, 'host-10.0.0.1', 'the old version a plugin holds stays as it was');
    assert.notEqual(registry.list(), list, 'a new list after a change');
    assert.equal(JSON.stringify(registry.list()), served());
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a reopened registry, loaded from both halves of the key space, finds devices by address and UUID after changes made before the first look-up', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-registry-'));
  const store = await openStore(dir);
  try {
    const ns = store.namespace('devices');
    const now = new Date(0).toISOString();
    // Ids on both sides of the split the load reads in parallel ('0…' to 'f…'), UUIDs stored in upper case.
    const stored: Device[] = Array.from({ length: 32 }, (_, i) => ({
      id: `${(i % 16).toString(16)}${String(i).padStart(7, '0')}-0000-4000-8000-000000000000`,
      ipAddress: `10.0.${i % 3}.${100 - i}`,
      hostname: `host-${i}`,
      domain: null,
      firmwareVersion: null,
      provisioningState: 'POST',
      provisioningMode: null,
      uuid: `AAAAAAAA-0000-1000-8000-${String(i).padStart(12, '0')}`,
      tls: false,
      tlsFingerprint: null,
      openPorts: [16992],
      authStatus: 'ok',
      credentialId: null,
      online: true,
      firstSeen: now,
      lastSeen: now,
      lastScanId: null,
    }));
    await ns.batch(stored.map((d) => ({ type: 'put' as const, key: d.id, value: d })));
    const registry = await openDeviceRegistry(ns);
    assert.equal(registry.count(), 32);
    const sortKey = (ip: string) => ip.split('.').reduce((key, octet) => key * 256 + Number(octet), 0);
    assert.deepEqual(registry.list().map((d) => d.ipAddress), stored.map((d) => d.ipAddress).sort((a, b) => sortKey(a) - sortKey(b)));
    // Changes before anything looked a device up by address or UUID.
    await registry.update(stored[3]!.id, { hostname: 'renamed' });
    await registry.delete(stored[20]!.id);
    assert.equal(registry.findByAddress(stored[3]!.ipAddress)?.hostname, 'renamed');
    assert.equal(registry.findByAddress(stored[20]!.ipAddress), undefined, 'a deleted device is not found');
    for (const i of [0, 9, 31]) assert.equal(registry.findByAddress(stored[i]!.ipAddress)?.id, stored[i]!.id);
    // A rescan of a stored device (UUID in lower case) updates it; a tunnel by UUID finds it; a move keeps its id.
    const rescanned = await registry.record(observation(stored[9]!.ipAddress, stored[9]!.uuid!.toLowerCase()), 'scan-2');
    assert.equal(rescanned.created, false);
    assert.equal(rescanned.device.id, stored[9]!.id);
    const tunnel = await registry.setConnection({ uuid: stored[17]!.uuid!, ipAddress: '10.9.9.9' }, 'cira', true);
    assert.equal(tunnel.created, false);
    assert.equal(tunnel.device!.id, stored[17]!.id);
    const moved = await registry.record(observation('10.0.5.5', stored[30]!.uuid!.toLowerCase()), 'scan-3');
    assert.equal(moved.device.id, stored[30]!.id);
    assert.equal(registry.findByAddress('10.0.5.5')?.id, stored[30]!.id);
    assert.equal(registry.findByAddress(stored[30]!.ipAddress), undefined, 'not at its old address any more');
    assert.equal(registry.count(), 31);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
