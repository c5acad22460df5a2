/**
 * The online monitor against the simulator: devices found by a scan are online; a device that goes
 * away is offline within two intervals and back within two intervals of returning, with exactly one
 * DeviceStatusChanged per change; the state and its time survive a restart.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Device } from '../../../plugins/rest-api/api.js';
import type { OnlineEntry } from '../../../plugins/remote-monitor/api.js';
import { startFleetGateway, startRecordedGateway, type FleetGateway } from './fixtures/fleet-gateway.js';
import { PRESENCE_READER_PATH, presenceServices } from './fixtures/presence-reader-plugin.js';
import { until } from '../../helpers/poll.js';

const INTERVAL_S = 1;
// Functional bound with room for a loaded machine: two intervals plus the probe itself, plus slack.
const TWO_INTERVALS_MS = 2 * INTERVAL_S * 1000;
const SLACK_MS = 4000;
const presenceId = randomBytes(6).toString('hex');
const MONITOR = {
  'remote-monitor': { options: { intervalSeconds: INTERVAL_S, missedProbesOffline: 2, probe: { rmcpWindowMs: 300, connectTimeoutMs: 1000 } } },
  'presence-reader': { enable: true, path: PRESENCE_READER_PATH, options: { id: presenceId } },
};
let kit: FleetGateway;

before(async () => {
  kit = await startFleetGateway({
    fleet: { count: 12, base: '127.61.0.1', tlsEvery: 4, altPasswordEvery: 6, seed: 'monitor-test' },
    range: '127.61.0.0/28',
    plugins: ['rest-api', 'remote-monitor'],
    pluginConfig: MONITOR,
  });
});

after(async () => {
  await kit?.cleanup();
});

const online = async (): Promise<OnlineEntry[]> => (await (await kit.gw.request('GET', '/api/monitor/online', { token: kit.token })).json()) as OnlineEntry[];
const entryOf = async (deviceId: string) => (await online()).find((e) => e.deviceId === deviceId);
const statusEvents = () => kit.events().filter((e) => e.event === 'DeviceStatusChanged');

test('every device a scan found is online, announced once, and counted in the summary', async () => {
  assert.equal(kit.devices.size, 12);
  const entries = await online();
  assert.equal(entries.length, 12);
  for (const entry of entries) {
    assert.equal(entry.online, true, entry.ipAddress);
    assert.ok(entry.since && entry.lastSeen, 'since and lastSeen set');
  }
  const announced = statusEvents();
  assert.equal(announced.length, 12, 'one DeviceStatusChanged per newly found device');
  assert.deepEqual(new Set(announced.map((e) => e.deviceId)), new Set(entries.map((e) => e.deviceId)));
  assert.ok(announced.every((e) => e.event === 'DeviceStatusChanged' && e.online));

  const summary = await (await kit.gw.request('GET', '/api/monitor/summary', { token: kit.token })).json();
  assert.deepEqual(summary, { total: 12, online: 12, offline: 0, unauthorized: 2 });
  const schedule = (await (await kit.gw.request('GET', '/api/monitor/schedule', { token: kit.token })).json()) as { tracked: number; intervalSeconds: number };
  assert.equal(schedule.tracked, 12);
  assert.equal(schedule.intervalSeconds, INTERVAL_S);
  assert.equal(presenceServices.get(presenceId)!.connected().length, 12);
});

test('a device that goes away is offline within two intervals and online again within two intervals of its return, one event per change', async () => {
  const sim = kit.fleet.devices[2]!;
  const device = kit.devices.get(sim.address)!;
  const presence = presenceServices.get(presenceId)!;
  // Let a few sweeps pass so that nothing left over from the scan is pending.
  await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_S * 1000));
  const mark = kit.events().length;

  const wentAway = Date.now();
  await sim.stop();
  const offline = await until('offline', async () => {
    const entry = await entryOf(device.id);
    return entry && !entry.online ? entry : undefined;
  }, TWO_INTERVALS_MS + SLACK_MS);
  const detectedMs = Date.now() - wentAway;
  assert.ok(Date.parse(offline.since!) >= wentAway, 'since is the time of the change');
  assert.ok(!presence.connected().some((m) => m.deviceId === device.id), 'no longer connected');
  assert.equal(presence.findConnected(device.hostname!), undefined);
  assert.equal(presence.describe(device.id)?.ipAddress, sim.address, 'still described for the disconnect notification');
  const offlineDevices = await until('device list follows', async () => {
    const list = (await (await kit.gw.request('GET', '/api/devices?online=false', { token: kit.token })).json()) as Device[];
    return list.length ? list : undefined;
  }, 5000);
  assert.deepEqual(offlineDevices.map((d) => d.id), [device.id]);
  assert.deepEqual(await (await kit.gw.request('GET', '/api/monitor/summary', { token: kit.token })).json(), { total: 12, online: 11, offline: 1, unauthorized: 2 });

  const cameBack = Date.now();
  await sim.start();
  const back = await until('online again', async () => {
    const entry = await entryOf(device.id);
    return entry?.online ? entry : undefined;
  }, TWO_INTERVALS_MS + SLACK_MS);
  const returnMs = Date.now() - cameBack;
  assert.ok(Date.parse(back.since!) >= cameBack);
  const { hostname, domain, uuid } = sim.config;
  for (const name of [hostname, `${hostname}.${domain}`.toUpperCase(), sim.address, uuid.toUpperCase()]) {
    assert.equal(presence.findConnected(name)?.deviceId, device.id, `connected again, found as ${name}`);
  }

  // Two more intervals: no further event may follow for this device or any other.
  await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_S * 1000));
  const changes = kit.events().slice(mark);
  assert.deepEqual(
    changes.map((e) => (e.event === 'DeviceStatusChanged' ? [e.deviceId, e.online] : [e.event])),
    [
      [device.id, false],
      [device.id, true],
    ],
    `exactly one event per change (offline after ${detectedMs} ms, back after ${returnMs} ms)`,
  );
});

let beforeRestart: OnlineEntry[] = [];

test('online states and the time they began survive a restart', async () => {
  const before = await online();
  beforeRestart = before;
  const { dataDir, masterKey } = kit.gw;
  await kit.gw.stop();
  const restarted = await startRecordedGateway(['rest-api', 'remote-monitor'], MONITOR, { dataDir, masterKey });
  try {
    const token = await restarted.gw.login();
    const after = (await (await restarted.gw.request('GET', '/api/monitor/online', { token })).json()) as OnlineEntry[];
    assert.deepEqual(
      after.map((e) => [e.deviceId, e.online, e.since]),
      before.map((e) => [e.deviceId, e.online, e.since]),
    );
    // The first sweeps after the restart change nothing.
    await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_S * 1000));
    assert.deepEqual(restarted.events(), []);
  } finally {
    await restarted.gw.stop();
  }
});

test('right after a start, before the first tick of the monitor, its routes and the presence service answer from the state of every device', async () => {
  assert.equal(beforeRestart.length, 12);
  const { dataDir, masterKey } = kit.gw;
  // A long interval: the first tick comes a second after start (the longest tick), after these reads.
  const slow = { ...MONITOR, 'remote-monitor': { options: { ...MONITOR['remote-monitor'].options, intervalSeconds: 600 } } };
  const restarted = await startRecordedGateway(['rest-api', 'remote-monitor'], slow, { dataDir, masterKey });
  try {
    const presence = presenceServices.get(presenceId)!;
    assert.equal(presence.connected().length, 12, 'connected machines from the stored states');
    const token = await restarted.gw.login();
    const after = (await (await restarted.gw.request('GET', '/api/monitor/online', { token })).json()) as OnlineEntry[];
    assert.deepEqual(
      after.map((e) => [e.deviceId, e.online, e.since]),
      beforeRestart.map((e) => [e.deviceId, e.online, e.since]),
    );
    assert.deepEqual(await (await restarted.gw.request('GET', '/api/monitor/summary', { token })).json(), { total: 12, online: 12, offline: 0, unauthorized: 2 });
    const schedule = (await (await restarted.gw.request('GET', '/api/monitor/schedule', { token })).json()) as { tracked: number; intervalSeconds: number };
    assert.equal(schedule.tracked, 12);
    assert.equal(schedule.intervalSeconds, 600);
  } finally {
    await restarted.gw.stop();
  }
});
