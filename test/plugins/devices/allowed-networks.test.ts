/**
 * The devices plugin's `allowedNetworks` on every device path: after a site narrows its networks, a stored device
 * outside them gets 422 on power, bulk power, monitor reads, diagnostics and the device gate's
 * reads (what scans and tunnel reads do), receives no sign-in, no
 * connection and no presence ping, and the online monitor marks it instead of probing it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import type { Device } from '../../../plugins/devices/api.js';

const PLUGINS = ['rest-api', 'power-mgmt', 'remote-monitor'];
/** A plugin that reads devices through the device gate's `read`, as scans and tunnels do. */
const GATE_READER = fileURLToPath(new URL('../../fixtures/plugins/gate-users/gate-reader.ts', import.meta.url));
let inside: Fleet;
let outside: Fleet;
let gw: TestGateway;
let token: string;
let insideId: string;
let outsideId: string;

before(async () => {
  inside = await startFleet({ count: 1, base: '127.0.5.1', rmcpPort: SIM_RMCP_PORT, seed: 'networks-in' });
  outside = await startFleet({ count: 1, base: '127.0.6.1', rmcpPort: SIM_RMCP_PORT, seed: 'networks-out' });
  // The site first allows both, scans them, then narrows its networks.
  const first = await startTestGateway({ plugins: ['rest-api'], overrides: SIM_AMT_SETTINGS });
  const firstToken = await first.login();
  await createCredential(first, firstToken, { username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  const scan = await waitForScan(first, firstToken, (await startScan(first, firstToken, { range: '127.0.5.1,127.0.6.1', timeoutMs: 2000 })).id);
  assert.equal(scan.found, 2);
  await first.stop();
  gw = await startTestGateway({
    plugins: PLUGINS,
    dataDir: first.dataDir,
    masterKey: first.masterKey,
    overrides: mergeConfig(SIM_AMT_SETTINGS, {
      plugins: { devices: { options: { allowedNetworks: ['127.0.5.0/24'] } }, 'remote-monitor': { options: { intervalSeconds: 0.5 } }, 'gate-reader': { enable: true, path: GATE_READER } },
    }),
  });
  token = await gw.login();
  const devices = (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];
  insideId = devices.find((d) => d.ipAddress === '127.0.5.1')!.id;
  outsideId = devices.find((d) => d.ipAddress === '127.0.6.1')!.id;
  outside.devices[0]!.resetCounters();
});

after(async () => {
  await gw?.cleanup();
  await inside?.stop();
  await outside?.stop();
});

const problem = async (res: Response) => ((await res.json()) as { type: string }).type.replace(/^.*:/, '');

test('a stored device outside the narrowed allowed networks gets 422 on every request path and receives no I/O', async () => {
  for (const [method, path, body] of [
    ['GET', `/api/power/${outsideId}`, undefined],
    ['POST', `/api/power/${outsideId}`, { action: 'off' }],
    ['GET', `/api/monitor/${outsideId}/hardware`, undefined],
    ['GET', `/api/monitor/${outsideId}/events`, undefined],
    ['GET', '/api/test/test-wsman/127.0.6.1', undefined],
  ] as const) {
    const res = await gw.request(method, path, { token, ...(body ? { body } : {}) });
    assert.equal(res.status, 422, `${method} ${path}`);
    assert.equal(await problem(res), 'GW_ERR_ADDRESS_NOT_ALLOWED', `${method} ${path}`);
  }
  // A device read through the gate (what scans and tunnel reads do) is refused the same way.
  const read = (id: string) => gw.request('POST', `/api/gate-reader/${id}`, { token }).then((r) => r.json() as Promise<{ problem: string | null }>);
  assert.equal((await read(outsideId)).problem, 'GW_ERR_ADDRESS_NOT_ALLOWED');
  assert.equal((await read(insideId)).problem, null);
  const bulk = await gw.request('POST', '/api/power/bulk', { token, body: { deviceIds: [insideId, outsideId], action: 'reset' } });
  assert.equal(bulk.status, 200);
  const results = ((await bulk.json()) as { results: Array<{ deviceId: string; ok: boolean; error?: { status: number } }> }).results;
  assert.equal(results.find((r) => r.deviceId === insideId)!.ok, true);
  assert.equal(results.find((r) => r.deviceId === outsideId)!.error?.status, 422);

  // The online monitor runs (the inside device is pinged) but never touches the outside one.
  const pinged = inside.devices[0]!;
  for (let waited = 0; pinged.counters().rmcpPings < 2 && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  assert.ok(pinged.counters().rmcpPings >= 2, 'the monitor probes the device inside the allowed networks');
  const counters = outside.devices[0]!.counters();
  assert.deepEqual(
    { requests: counters.requests, authAttempts: counters.authAttempts, connections: counters.connections, rmcpPings: counters.rmcpPings },
    { requests: 0, authAttempts: 0, connections: 0, rmcpPings: 0 },
  );

  const online = (await (await gw.request('GET', '/api/monitor/online', { token })).json()) as Array<{ deviceId: string; notMonitored?: string }>;
  assert.equal(online.find((e) => e.deviceId === outsideId)!.notMonitored, 'outside-allowed-networks');
  assert.equal(online.find((e) => e.deviceId === insideId)!.notMonitored, undefined);
  const schedule = (await (await gw.request('GET', '/api/monitor/schedule', { token })).json()) as { outsideAllowedNetworks: number };
  assert.equal(schedule.outsideAllowedNetworks, 1);
});
