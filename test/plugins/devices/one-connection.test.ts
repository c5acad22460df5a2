/**
 * A device sees at most one connection from the gateway at any moment, whichever paths want it at
 * once: a scan's probes and reads, the online monitor's sweeps (TCP, the devices ignore its ping),
 * power reads and resets, diagnostics, and a CIRA tunnel's proof of identity along the tunnel of a
 * device the LAN knows. The simulated devices count the management connections they have open, on
 * the LAN and through their tunnel together.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet, type SimDevice } from '../../sim/index.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import { until } from '../../helpers/poll.js';
import { ciraPort } from '../cira/gateway-cira-helpers.js';
import type { Device } from '../../../plugins/devices/api.js';
import type { CiraConnection } from '../../../plugins/cira/api.js';

const MPS = { username: 'mps-one-connection', password: 'Mps-P@ssw0rd-one' };
const LAN_BASE = '127.63.0.1';
const CIRA_BASE = '127.63.1.1';

let gw: TestGateway;
let token: string;
let lan: Fleet;
let both: Fleet;
const logs: string[] = [];

const devicesNow = async () => (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];
const connectionOf = async (uuid: string) => ((await (await gw.request('GET', '/api/cira/connections', { token })).json()) as CiraConnection[]).find((c) => c.uuid === uuid);

before(async () => {
  gw = await startTestGateway({
    plugins: ['rest-api', 'power-mgmt', 'remote-monitor', 'cira'],
    logs,
    overrides: mergeConfig(SIM_AMT_SETTINGS, {
      plugins: {
        'remote-monitor': { options: { intervalSeconds: 0.5, probe: { rmcpWindowMs: 50, connectTimeoutMs: 500 } } },
        'power-mgmt': { options: { confirm: { attempts: 3, intervalMs: 50 } } },
        cira: { enable: true, options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 5, forwardSettleMs: 50 } },
      },
    }),
  });
  token = await gw.login();
  await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  assert.equal((await gw.request('POST', '/api/cira/accounts', { token, body: MPS })).status, 201);
  const ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
  // Slow answers widen every overlap a missing turn would allow; no RMCP, so the monitor's sweeps connect.
  lan = await startFleet({ count: 4, base: LAN_BASE, rmcpPort: 0, seed: 'one-connection', tlsEvery: 2, responseDelayMs: [40, 120] });
  // A TLS device on the LAN that also dials in (held back until the storm): its tunnel must prove itself.
  both = await startFleet({
    count: 2,
    base: CIRA_BASE,
    rmcpPort: 0,
    seed: 'one-connection-cira',
    tlsEvery: 1,
    ciraEvery: 2,
    ciraLan: true,
    ciraRampMs: 600_000,
    responseDelayMs: [40, 120],
    cira: { host: '127.0.0.1', port: ciraPort(logs), ...MPS, ca, keepAliveSeconds: 1, reconnectMs: 0 },
  });
  await both.devices[1]!.cira!.stop();
});

after(async () => {
  await both?.stop();
  await lan?.stop();
  await gw?.cleanup();
});

test('a scan, monitor sweeps, power reads and resets, diagnostics and a tunnel proof at once: no device ever has two of the gateway\'s connections open', async () => {
  const tunnelled = both.devices[1]!;
  const all: SimDevice[] = [...lan.devices, tunnelled];
  const scanBoth = await waitForScan(gw, token, (await startScan(gw, token, { range: `${CIRA_BASE}-2`, timeoutMs: 2000 })).id);
  assert.equal(scanBoth.found, 2);
  const scanLan = await waitForScan(gw, token, (await startScan(gw, token, { range: `${LAN_BASE}-4`, timeoutMs: 2000 })).id);
  assert.equal(scanLan.found, 4);
  const known = await devicesNow();
  const idOf = (sim: SimDevice) => known.find((d) => d.ipAddress === sim.address)!.id;
  assert.equal(known.find((d) => d.ipAddress === tunnelled.address)?.tlsFingerprint, tunnelled.certificateFingerprint, 'its certificate is pinned on the LAN');
  for (const sim of all) sim.resetCounters();

  let storming = true;
  const statuses: number[] = [];
  const loop = async (work: () => Promise<unknown>) => {
    while (storming) await work();
  };
  const call = async (method: string, path: string, body?: unknown) => statuses.push((await gw.request(method, path, { token, ...(body ? { body } : {}) })).status);
  const storm = [
    ...all.map((sim) => loop(() => call('GET', `/api/power/${idOf(sim)}`))),
    ...all.map((sim) => loop(() => call('POST', `/api/power/${idOf(sim)}`, { action: 'reset' }))),
    ...all.map((sim) => loop(() => call('GET', `/api/test/test-wsman/${idOf(sim)}`))),
    loop(async () => {
      await waitForScan(gw, token, (await startScan(gw, token, { range: `${LAN_BASE}-4`, timeoutMs: 1000 })).id);
      await waitForScan(gw, token, (await startScan(gw, token, { range: CIRA_BASE, timeoutMs: 1000 })).id);
    }),
  ];
  // The tunnel dials in mid-storm: claiming a LAN device's UUID, it is proven along the tunnel, in the device's turn.
  tunnelled.cira!.start();
  const proven = await until('the tunnel proves itself with the pinned certificate', async () => ((await connectionOf(tunnelled.config.uuid))?.identity === 'proven' ? true : undefined), 30_000);
  assert.ok(proven);
  await until('the monitor has probed every device by TCP', () => all.every((sim) => sim.counters().connections > sim.counters().requests / 4) || undefined, { timeoutMs: 20_000, intervalMs: 200 }).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  storming = false;
  await Promise.all(storm);

  assert.ok(statuses.length > 40, `the storm ran (${statuses.length} calls)`);
  assert.deepEqual([...new Set(statuses)].sort(), [200], 'every call was answered');
  const schedule = (await (await gw.request('GET', '/api/monitor/schedule', { token })).json()) as { lastInterval: { probes: number } | null };
  assert.ok((schedule.lastInterval?.probes ?? 0) > 0, 'the monitor swept during the storm');
  assert.ok(tunnelled.cira!.counters.channelsOpened > 0, 'the proof (and then operations) went through the tunnel');
  for (const sim of all) {
    const c = sim.counters();
    assert.ok(c.requests > 10 && c.powerChanges > 0, `${sim.address} was busy (${c.requests} requests, ${c.powerChanges} resets)`);
    assert.equal(c.peakOpenConnections, 1, `${sim.address} had one connection from the gateway at a time`);
  }
});
