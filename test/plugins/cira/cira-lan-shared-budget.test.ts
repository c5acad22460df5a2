/**
 * One failed-login budget per device, whichever path reaches it: a device on the local network that
 * also holds a CIRA tunnel is signed in to by LAN scans (at its address) and by power, monitor reads
 * and diagnostics (through its tunnel). AMT counts every failed login of both in one counter, so
 * after its password changes on the device the gateway's failures over both paths together stay
 * within the budget (lockout 10, margin 2: 8) and the device is never locked out.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet, type SimDevice } from '../../sim/index.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import { ciraPort } from './gateway-cira-helpers.js';
import { until } from '../../helpers/poll.js';

const MPS = { username: 'mps-shared', password: 'Mps-P@ssw0rd-shared' };
/** The device listens here on the LAN and dials its tunnel from here. */
const ADDRESS = '127.44.1.1';
const LOCKOUT_THRESHOLD = 10;
/** signIn.lockoutThreshold (10) minus signIn.safetyMargin (2), the defaults. */
const BUDGET = 8;
/** More wrong credentials than either path's budget, so that each path alone could spend a whole one. */
const DECOYS = 9;
const ROUNDS = 4;

interface SignInView {
  consecutiveFailures: number;
  budget: number;
  paused: { reason: string } | null;
}

let gw: TestGateway;
let token: string;
let fleet: Fleet;
let sim: SimDevice;
const logs: string[] = [];

const devices = async (): Promise<Device[]> => (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];

before(async () => {
  gw = await startTestGateway({
    plugins: ['rest-api', 'power-mgmt', 'remote-monitor', 'cira'],
    logs,
    overrides: mergeConfig(SIM_AMT_SETTINGS, {
      plugins: { cira: { enable: true, options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 3, forwardSettleMs: 50 } } },
    }),
  });
  token = await gw.login();
  await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  assert.equal((await gw.request('POST', '/api/cira/accounts', { token, body: MPS })).status, 201);
  const ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
  fleet = await startFleet({
    count: 1,
    base: ADDRESS,
    rmcpPort: 0,
    seed: 'lan-cira-shared-budget',
    lockoutThreshold: LOCKOUT_THRESHOLD,
    // Long enough that a lockout is still visible when the test looks.
    lockoutMs: 600_000,
    cira: { host: '127.0.0.1', port: ciraPort(logs), username: MPS.username, password: MPS.password, ca, keepAliveSeconds: 1, reconnectMs: 0 },
    ciraLan: true,
  });
  sim = fleet.devices[0]!;
});

after(async () => {
  await fleet?.stop();
  await gw?.cleanup();
});

test('a device on the LAN and in a CIRA tunnel has one failed-login budget: wrong credentials over both paths never lock it out', async () => {
  assert.notEqual(sim.config.httpPort, null, 'the device listens on the LAN too');
  await sim.cira!.waitFor('connected');
  // Read through the tunnel (UUID known), then found at its address by a LAN scan: one device, both ways.
  await until('the device is read through its tunnel', async () => (await devices()).find((d) => d.uuid === sim.config.uuid && d.authStatus === 'ok'));
  const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: ADDRESS, timeoutMs: 2000 })).id);
  assert.equal(scan.found, 1);
  const listed = await devices();
  assert.equal(listed.length, 1, 'one device, not one per path');
  const device = listed[0]!;
  assert.equal(device.uuid, sim.config.uuid);
  assert.equal(device.ipAddress, ADDRESS);
  assert.deepEqual(device.connections, ['lan', 'cira']);
  assert.equal(device.authStatus, 'ok');

  // The device's password changes: the stored credential and every decoy are now wrong.
  const decoys: string[] = [];
  for (let i = 1; i <= DECOYS; i++) decoys.push(await createCredential(gw, token, { name: `decoy-${i}`, username: 'admin', password: `Decoy-P@ss-${i}` }));
  sim.setPassword('Changed-on-the-device-9');
  sim.resetCounters();
  const channelsBefore = sim.cira!.counters.channelsOpened;

  const statuses: number[] = [];
  const failuresByPath = { lan: 0, tunnel: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    // A LAN scan signs in at the device's address...
    let before = sim.counters().authFailures;
    const rescan = await waitForScan(gw, token, (await startScan(gw, token, { range: ADDRESS, timeoutMs: 2000 })).id);
    assert.equal(rescan.status, 'completed');
    failuresByPath.lan += sim.counters().authFailures - before;
    // ...power, monitor reads and diagnostics go through the tunnel.
    before = sim.counters().authFailures;
    statuses.push((await gw.request('GET', `/api/power/${device.id}`, { token })).status);
    statuses.push((await gw.request('GET', `/api/monitor/${device.id}/hardware`, { token })).status);
    for (const credentialId of decoys.slice(round * 2, round * 2 + 2)) {
      const check = await gw.request('GET', `/api/test/test-wsman/${ADDRESS}?credentialId=${credentialId}`, { token });
      assert.equal(check.status, 200, await check.clone().text());
      assert.equal(((await check.json()) as { authenticated: boolean }).authenticated, false);
    }
    failuresByPath.tunnel += sim.counters().authFailures - before;
  }
  assert.ok(statuses.every((s) => s !== 200), `no operation signs in with a wrong password: ${statuses.join(',')}`);
  assert.ok(sim.cira!.counters.channelsOpened > channelsBefore, 'the device operations went through the tunnel');

  const counters = sim.counters();
  assert.equal(sim.lockedOut, false, 'the device never locked its account');
  assert.equal(counters.lockedRefusals, 0);
  assert.ok(counters.authFailures <= BUDGET, `${counters.authFailures} failed logins on the device over both paths (budget ${BUDGET}, lockout at ${LOCKOUT_THRESHOLD})`);
  // Both paths tried wrong credentials: the one budget is shared, not one path starved by construction.
  assert.ok(failuresByPath.lan > 0 && failuresByPath.tunnel > 0, `failed logins by path: ${JSON.stringify(failuresByPath)}`);

  // The gateway knows the device's one count and holds further sign-ins back.
  const view = (await (await gw.request('GET', `/api/devices/${device.id}/sign-in`, { token })).json()) as SignInView;
  assert.equal(view.budget, BUDGET);
  assert.equal(view.consecutiveFailures, counters.authFailures, 'the memory counts what the device counted');
  assert.equal(view.paused?.reason, 'budget-spent');
  assert.equal((await devices()).find((d) => d.id === device.id)?.authStatus, 'locked-out-risk');
});
