import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import type { Device } from '../../../plugins/rest-api/api.js';

// 200 devices in 127.30.0.1-127.30.0.200 inside a /23 of 512 addresses: 312 empty ones.
const RANGE = '127.30.0.0/23';
const ATTEMPT_CAP = 2;
let fleet: Fleet;
let gw: TestGateway;
let token: string;

before(async () => {
  fleet = await startFleet({ count: 200, base: '127.30.0.1', rmcpPort: SIM_RMCP_PORT, tlsEvery: 5, altPasswordEvery: 7, provisioningStates: [2, 2, 1, 0], seed: 'scan-test' });
  gw = await startTestGateway({ plugins: ['rest-api'], overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { 'rest-api': { options: { scan: { credentialAttemptsPerDevice: ATTEMPT_CAP } } } } }) });
  token = await gw.login();
  // Three credentials, none with the alternative password: devices using it refuse all of them.
  await createCredential(gw, token, { name: 'wrong-1', username: 'admin', password: 'Not-The-Password-1' });
  await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  await createCredential(gw, token, { name: 'wrong-2', username: 'operator', password: 'Not-The-Password-2' });
});

after(async () => {
  await gw?.cleanup();
  await fleet?.stop();
});

const listDevices = async () => (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];

test('a scan finds every simulated device exactly once with its hostname, firmware version and provisioning state', async () => {
  const started = await startScan(gw, token, { range: RANGE, timeoutMs: 1000 });
  assert.equal(started.status, 'running');
  assert.equal(started.total, 512);
  const scan = await waitForScan(gw, token, started.id);
  assert.equal(scan.status, 'completed');
  assert.equal(scan.scanned, 512);
  assert.equal(scan.found, 200);

  const devices = await listDevices();
  assert.equal(devices.length, 200);
  assert.equal(new Set(devices.map((d) => d.ipAddress)).size, 200, 'each address once');
  const states = ['PRE', 'IN', 'POST'];
  for (const sim of fleet.devices) {
    const device = devices.find((d) => d.ipAddress === sim.address);
    assert.ok(device, `${sim.address} found`);
    const cfg = sim.config;
    assert.equal(device.tls, cfg.tls, `${sim.address} tls`);
    assert.ok(device.openPorts.includes(SIM_RMCP_PORT), `${sim.address} answered the ping`);
    assert.equal(device.provisioningState, states[cfg.provisioningState], `${sim.address} provisioning state`);
    if (cfg.passwordId === 'alt') {
      assert.equal(device.authStatus, 'unauthorized', `${sim.address} refuses every credential`);
      assert.equal(device.firmwareVersion, cfg.firmwareVersion, 'version from the Server header');
      assert.equal(device.hostname, null);
      assert.ok(sim.counters().authFailures <= ATTEMPT_CAP, `${sim.address}: ${sim.counters().authFailures} failed logins, cap ${ATTEMPT_CAP}`);
    } else {
      assert.equal(device.authStatus, 'ok', `${sim.address} signed in`);
      assert.equal(device.hostname, cfg.hostname);
      assert.ok(cfg.firmwareVersion.startsWith(device.firmwareVersion ?? '-'), `${sim.address} firmware ${device.firmwareVersion} vs ${cfg.firmwareVersion}`);
      assert.equal(device.uuid, cfg.uuid.toLowerCase());
      if (cfg.tls) assert.match(device.tlsFingerprint ?? '', /^[0-9A-F:]{95}$|^[0-9a-f]{64}$/i, 'TLS fingerprint pinned');
    }
  }
  const alt = fleet.devices.filter((d) => d.config.passwordId === 'alt');
  assert.ok(alt.length >= 20 && alt.every((d) => d.counters().authFailures >= 1));
});

test('a rescan updates the devices and never duplicates them', async () => {
  const before = await listDevices();
  const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: RANGE })).id);
  assert.equal(scan.status, 'completed');
  const afterRescan = await listDevices();
  assert.equal(afterRescan.length, 200);
  assert.deepEqual(afterRescan.map((d) => d.id).sort(), before.map((d) => d.id).sort());
  for (const device of afterRescan) {
    assert.equal(device.lastScanId, scan.id);
    assert.equal(device.firstSeen, before.find((d) => d.id === device.id)!.firstSeen);
  }
  const scans = (await (await gw.request('GET', '/api/scans', { token })).json()) as Array<{ id: string }>;
  assert.equal(scans[0]!.id, scan.id, 'newest first');
});

test('devices can be filtered, paged, read and deleted', async () => {
  let res = await gw.request('GET', '/api/devices?limit=10&offset=5', { token });
  assert.equal(res.headers.get('x-total-count'), '200');
  const page = (await res.json()) as Device[];
  assert.equal(page.length, 10);
  assert.equal(page[0]!.ipAddress, '127.30.0.6');
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.ok(res.headers.get('x-request-id'), 'the page carries the headers set before it');
  const head = await gw.request('HEAD', '/api/devices?limit=10&offset=5', { token });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(JSON.stringify(page))));
  assert.equal(await head.text(), '');
  res = await gw.request('GET', '/api/devices?provisioningState=PRE', { token });
  const pre = (await res.json()) as Device[];
  assert.equal(pre.length, 50);
  assert.ok(pre.every((d) => d.provisioningState === 'PRE'));
  res = await gw.request('GET', '/api/devices?q=amt-sim-0012', { token });
  assert.deepEqual(((await res.json()) as Device[]).map((d) => d.hostname), ['amt-sim-0012']);
  res = await gw.request('GET', '/api/devices?q=127.30.0.19', { token });
  assert.deepEqual(((await res.json()) as Device[]).map((d) => d.ipAddress).sort(), ['127.30.0.19', '127.30.0.190', '127.30.0.191', '127.30.0.192', '127.30.0.193', '127.30.0.194', '127.30.0.195', '127.30.0.196', '127.30.0.197', '127.30.0.198', '127.30.0.199']);
  res = await gw.request('GET', '/api/devices?limit=5000', { token });
  assert.equal(res.status, 400);
  const victim = page[0]!;
  assert.equal(((await (await gw.request('GET', `/api/devices/${victim.id}`, { token })).json()) as Device).ipAddress, victim.ipAddress);
  assert.equal((await gw.request('DELETE', `/api/devices/${victim.id}`, { token })).status, 204);
  assert.equal((await gw.request('GET', `/api/devices/${victim.id}`, { token })).status, 404);
  assert.equal((await gw.request('DELETE', `/api/devices/${victim.id}`, { token })).status, 404);
  assert.equal((await listDevices()).length, 199);
});

test('range errors: malformed parts are 400 naming the part, too wide or not allowed 422', async () => {
  let res = await gw.request('POST', '/api/scan/start', { token, body: { range: '127.30.0.1,127.30.0.999' } });
  assert.equal(res.status, 400);
  assert.match(((await res.json()) as { detail: string }).detail, /'127.30.0.999' is malformed/);
  res = await gw.request('POST', '/api/scan/start', { token, body: { range: '127.0.0.0/8' } });
  assert.equal(res.status, 422);
  assert.match(((await res.json()) as { detail: string }).detail, /16777216 addresses; at most 65536/);
  res = await gw.request('POST', '/api/scan/start', { token, body: { range: '192.0.2.0/24' } });
  assert.equal(res.status, 422);
  res = await gw.request('POST', '/api/scan/start', { token, body: { range: '127.30.0.1', credentialId: 'nope' } });
  assert.equal(res.status, 422);
  res = await gw.request('POST', '/api/scan/start', { token, body: { range: '127.30.0.1', colour: 'red' } });
  assert.equal(res.status, 400);
  assert.equal((await gw.request('POST', '/api/scan/cancel/unknown', { token })).status, 404);
  const scans = (await (await gw.request('GET', '/api/scans', { token })).json()) as Array<{ id: string }>;
  assert.equal((await gw.request('POST', `/api/scan/cancel/${scans[0]!.id}`, { token })).status, 409);
});

test('diagnostics: test-credential unseals and signs in; test-wsman reads a device; bad addresses are refused', async () => {
  const good = fleet.devices.find((d) => d.config.passwordId === 'default' && !d.config.tls)!;
  const alt = fleet.devices.find((d) => d.config.passwordId === 'alt' && !d.config.tls)!;
  let res = await gw.request('GET', `/api/test/test-credential?ip=${good.address}`, { token });
  let body = (await res.json()) as { unsealed: boolean; username: string; device: { authenticated: boolean; status: string } };
  assert.equal(body.unsealed, true);
  assert.equal(body.device.authenticated, true);
  assert.equal(body.device.status, 'ok');
  res = await gw.request('GET', `/api/test/test-credential?ip=${alt.address}`, { token });
  body = (await res.json()) as typeof body;
  assert.deepEqual([body.device.authenticated, body.device.status], [false, 'unauthorized']);
  res = await gw.request('GET', '/api/test/test-credential?ip=127.30.1.250', { token });
  body = (await res.json()) as typeof body;
  assert.equal(body.device.status, 'unreachable');

  res = await gw.request('GET', `/api/test/test-wsman/${good.address}`, { token });
  const wsman = (await res.json()) as Record<string, unknown>;
  assert.equal(wsman.reachable, true);
  assert.equal(wsman.authenticated, true);
  assert.equal(wsman.port, 16992);
  assert.equal(wsman.hostname, good.config.hostname);
  assert.equal(wsman.provisioningState, ['PRE', 'IN', 'POST'][good.config.provisioningState]);
  assert.equal(typeof wsman.elapsedMs, 'number');
  const tlsDevice = fleet.devices.find((d) => d.config.tls && d.config.passwordId === 'default')!;
  res = await gw.request('GET', `/api/test/test-wsman/${tlsDevice.address}`, { token });
  const tlsResult = (await res.json()) as Record<string, unknown>;
  assert.deepEqual([tlsResult.reachable, tlsResult.tls, tlsResult.port, tlsResult.authenticated], [true, true, 16993, true]);
  assert.equal((await gw.request('GET', '/api/test/test-wsman/127.30.0.300', { token })).status, 400);
  assert.equal((await gw.request('GET', '/api/test/test-wsman/8.8.8.8', { token })).status, 422);
  assert.equal((await gw.request('GET', '/api/test/test-credential?id=unknown', { token })).status, 404);
});
