/**
 * Remote reads of one device against the simulator: the hardware report from the CIM inventory
 * classes and the decoded event log, newest first and paged; and the problems of a device that is
 * unknown, refuses the credentials or is offline.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEventRecord } from '../../../workers/amt/reads/event-record.js';
import type { HardwareReport } from '../../../plugins/remote-monitor/hardware-view.js';
import type { MonitorEvent } from '../../../plugins/remote-monitor/event-view.js';
import { startFleetGateway, type FleetGateway } from './fixtures/fleet-gateway.js';

const ATTEMPTS = 2;
let kit: FleetGateway;

before(async () => {
  kit = await startFleetGateway({
    fleet: { count: 6, base: '127.61.1.1', tlsEvery: 2, altPasswordEvery: 6, eventLogRecords: 30, seed: 'reads-test' },
    range: '127.61.1.0/29',
    plugins: ['rest-api', 'remote-monitor'],
    pluginConfig: { 'remote-monitor': { options: { intervalSeconds: 30, device: { credentialAttempts: ATTEMPTS, requestTimeoutMs: 5000 } } } },
  });
});

after(async () => {
  await kit?.cleanup();
});

const get = (path: string) => kit.gw.request('GET', path, { token: kit.token });
const idOf = (index: number) => kit.devices.get(kit.fleet.devices[index]!.address)!.id;

test('the hardware report of a device holds its system, BIOS, processors, memory and storage', async () => {
  for (const index of [0, 1]) {
    const sim = kit.fleet.devices[index]!;
    const res = await get(`/api/monitor/${idOf(index)}/hardware`);
    assert.equal(res.status, 200, `${sim.address} (tls ${sim.config.tls})`);
    const report = (await res.json()) as HardwareReport;
    assert.equal(report.deviceId, idOf(index));
    assert.deepEqual(report.system, { manufacturer: 'Intel(R) Client Systems', model: 'NUC9V7QNX', serialNumber: `JR${sim.config.serial}`, version: 'K47174-402', uuid: sim.config.uuid.toLowerCase() });
    assert.equal(report.baseboard?.serialNumber, `KN${sim.config.serial}`);
    assert.deepEqual(report.bios, { manufacturer: 'Intel Corp.', version: 'QNCFLX70.0054.2020.0810.2227', releaseDate: '2020-08-10T00:00:00Z' });
    assert.deepEqual(report.processors, [{ model: 'Intel(R) Core(TM) i7-9850H CPU @ 2.60GHz', manufacturer: 'Intel(R) Corporation', maxClockSpeedMhz: 8300, currentClockSpeedMhz: 2400 }]);
    assert.deepEqual(report.memory.map((m) => [m.bankLabel, m.capacityBytes, m.speedMhz]), [
      ['BANK 0', 17179869184, 2400],
      ['BANK 2', 17179869184, 2400],
    ]);
    assert.deepEqual(report.storage, [
      { deviceId: 'MEDIA DEV 0', maxMediaSizeKb: 960197124 },
      { deviceId: 'MEDIA DEV 1', maxMediaSizeKb: 500107862 },
    ]);
    assert.deepEqual(report.unavailable, []);
  }
});

test("the event log comes decoded into time, source, severity and description, newest first, paged", async () => {
  const sim = kit.fleet.devices[1]!;
  const expected = sim.state.eventRecords.map((r) => decodeEventRecord(r)!).sort((a, b) => b.timestamp - a.timestamp);
  const first = await get(`/api/monitor/${idOf(1)}/events?limit=10`);
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('x-total-count'), '30');
  const page1 = (await first.json()) as MonitorEvent[];
  const page2 = (await (await get(`/api/monitor/${idOf(1)}/events?offset=10&limit=10`)).json()) as MonitorEvent[];
  const all = (await (await get(`/api/monitor/${idOf(1)}/events?limit=1000`)).json()) as MonitorEvent[];
  assert.equal(page1.length, 10);
  assert.deepEqual([...page1, ...page2], all.slice(0, 20));
  assert.equal(all.length, 30);
  for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.time >= all[i]!.time, 'newest first');
  all.forEach((event, i) => {
    const record = expected[i]!;
    assert.equal(event.time, record.time);
    assert.equal(event.source, record.entityName);
    assert.equal(event.severity, record.severity);
    assert.equal(event.eventOffset, record.eventOffset);
    assert.equal(event.eventData, Buffer.from(record.eventData).toString('hex'));
  });
  assert.ok(all.some((e) => e.source === 'BIOS'), 'BIOS progress events name their source');
  // The simulator logs firmware progress, system events, boots, S5 and chassis intrusions.
  const readable = /^(System firmware progress: .+|System event: System reconfigured|System boot: Initiated by power up|ACPI power state: S5\/G2 soft-off|Physical security: General chassis intrusion|System firmware progress, event offset 2, on BIOS)$/;
  for (const event of all) assert.match(event.description, readable);
  assert.ok(new Set(all.map((e) => e.severity)).size > 1);
  const bad = await get(`/api/monitor/${idOf(1)}/events?limit=5000`);
  assert.equal(bad.status, 400);
});

test('an unknown device is 404, one that refuses the credentials 502 after a bounded number of tries, an offline one 409', async () => {
  const unknown = await get('/api/monitor/no-such-device/hardware');
  assert.equal(unknown.status, 404);
  assert.match(unknown.headers.get('content-type') ?? '', /problem\+json/);

  const alt = kit.fleet.devices.find((d) => d.config.passwordId === 'alt')!;
  alt.resetCounters();
  const refused = await get(`/api/monitor/${kit.devices.get(alt.address)!.id}/events`);
  assert.equal(refused.status, 502);
  const problem = (await refused.json()) as { type: string; detail: string };
  assert.match(problem.type, /GW_ERR_DEVICE_UNAUTHORIZED$/);
  assert.ok(!problem.detail.includes('P@ss'), 'no password in the problem');
  assert.ok(alt.counters().authFailures <= ATTEMPTS, `${alt.counters().authFailures} failed logins`);

  const sim = kit.fleet.devices[3]!;
  await sim.stop();
  try {
    const offline = await get(`/api/monitor/${idOf(3)}/hardware`);
    assert.equal(offline.status, 409);
    assert.match(((await offline.json()) as { type: string }).type, /GW_ERR_DEVICE_OFFLINE$/);
  } finally {
    await sim.start();
  }
});
