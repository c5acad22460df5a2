import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFleet } from '../../sim/fleet.js';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { spawnGateway } from '../../helpers/gateway-process.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';

test('cancel stops every task of the scan within a second and keeps what was found', async () => {
  const fleet = await startFleet({ count: 30, base: '127.31.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'cancel' });
  const gw = await startTestGateway({ plugins: ['rest-api'], overrides: SIM_AMT_SETTINGS });
  try {
    const token = await gw.login();
    await createCredential(gw, token, { username: 'admin', password: 'P@ssw0rd1' });
    const started = await startScan(gw, token, { range: '127.31.0.0/16', concurrency: 32 });
    for (let i = 0; i < 100 && (await waitScanned(gw, token, started.id)) < 1000; i++) await sleep(50);
    const t0 = performance.now();
    const res = await gw.request('POST', `/api/scan/cancel/${started.id}`, { token });
    assert.equal(res.status, 200);
    const cancelled = (await res.json()) as { status: string; found: number; scanned: number };
    assert.equal(cancelled.status, 'cancelled');
    assert.ok(cancelled.scanned < 65536);
    await sleep(1000 - (performance.now() - t0));
    const settled = fleet.devices.reduce((n, d) => n + d.counters().connections + d.counters().rmcpPings, 0);
    const scanAfter = (await (await gw.request('GET', `/api/scan/${started.id}`, { token })).json()) as { status: string; scanned: number; found: number };
    await sleep(1000);
    const later = fleet.devices.reduce((n, d) => n + d.counters().connections + d.counters().rmcpPings, 0);
    assert.equal(later, settled, 'no device traffic more than a second after the cancel');
    const scanLater = (await (await gw.request('GET', `/api/scan/${started.id}`, { token })).json()) as typeof scanAfter;
    assert.deepEqual(scanLater, scanAfter);
    assert.equal(scanLater.status, 'cancelled');
    const devices = (await (await gw.request('GET', '/api/devices', { token })).json()) as unknown[];
    assert.equal(devices.length, scanLater.found, 'devices found before the cancel are kept');
    assert.equal((await gw.request('POST', `/api/scan/cancel/${started.id}`, { token })).status, 409);
    const next = await waitForScan(gw, token, (await startScan(gw, token, { range: '127.31.0.1-40' })).id);
    assert.equal(next.status, 'completed', 'the pool still works after a cancel');
    assert.equal(next.found, 30);
  } finally {
    await gw.cleanup();
    await fleet.stop();
  }
});

async function waitScanned(gw: Awaited<ReturnType<typeof startTestGateway>>, token: string, id: string): Promise<number> {
  return ((await (await gw.request('GET', `/api/scan/${id}`, { token })).json()) as { scanned: number }).scanned;
}

test('several scans run at once within the global bound', async () => {
  const fleet = await startFleet({ count: 12, base: '127.33.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'parallel' });
  const gw = await startTestGateway({ plugins: ['rest-api'], overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { 'rest-api': { options: { scan: { maxConcurrentScans: 2 } } } } }) });
  try {
    const token = await gw.login();
    await createCredential(gw, token, { username: 'admin', password: 'P@ssw0rd1' });
    const a = await startScan(gw, token, { range: '127.33.0.1-6' });
    const b = await startScan(gw, token, { range: '127.33.0.7-12' });
    const refused = await gw.request('POST', '/api/scan/start', { token, body: { range: '127.33.0.1' } });
    assert.equal(refused.status, 429);
    const [doneA, doneB] = await Promise.all([waitForScan(gw, token, a.id), waitForScan(gw, token, b.id)]);
    assert.deepEqual([doneA.status, doneA.found, doneB.status, doneB.found], ['completed', 6, 'completed', 6]);
  } finally {
    await gw.cleanup();
    await fleet.stop();
  }
});

test('a scan running when the process is killed is marked interrupted on the next start', async () => {
  const masterKey = randomBytes(32).toString('base64');
  const gw0 = await startTestGateway({ plugins: ['rest-api'], masterKey });
  const dataDir = gw0.dataDir;
  await gw0.stop();
  const proc = await spawnGateway(dataDir, mergeConfig(SIM_AMT_SETTINGS, { plugins: { 'rest-api': { enable: true }, 'route-permissions': { enable: false }, 'scan-hub': { enable: false }, 'remote-monitor': { enable: false }, 'power-mgmt': { enable: false }, 'soap-mps': { enable: false } } }), { AMTGW_MASTER_KEY: masterKey });
  let scanId: string;
  try {
    const url = await proc.serving;
    const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin-test-password-1' }) });
    const { token } = (await login.json()) as { token: string };
    const res = await fetch(`${url}/api/scan/start`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ range: '127.32.0.0/16', concurrency: 8 }) });
    assert.equal(res.status, 202);
    scanId = ((await res.json()) as { id: string }).id;
    await sleep(300);
  } finally {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
  const gw = await startTestGateway({ plugins: ['rest-api'], dataDir, masterKey });
  try {
    const scan = (await (await gw.request('GET', `/api/scan/${scanId}`, { token: await gw.login() })).json()) as { status: string; finishedAt?: string; error?: string };
    assert.equal(scan.status, 'interrupted');
    assert.ok(scan.finishedAt);
    assert.match(scan.error ?? '', /stopped while the scan was running/);
  } finally {
    await gw.cleanup();
    await gw0.cleanup();
  }
});

test('a wrong master key stops start-up with a clear error before anything is unsealed or written', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'] });
  await createCredential(gw, await gw.login(), { username: 'admin', password: 'Sealed-Under-Key-A' });
  await gw.stop();
  try {
    await assert.rejects(startTestGateway({ plugins: ['rest-api'], dataDir: gw.dataDir, masterKey: randomBytes(32).toString('base64') }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_MASTER_KEY');
      assert.match(err.message, /from AMTGW_MASTER_KEY \(key id \S+\) is not the key the store in .* is sealed with/);
      assert.equal(err.message.includes('Sealed-Under-Key-A'), false);
      return true;
    });
    const again = await startTestGateway({ plugins: ['rest-api'], dataDir: gw.dataDir, masterKey: gw.masterKey });
    const token = await again.login();
    const res = await again.request('GET', '/api/test/test-credential', { token });
    assert.equal(((await res.json()) as { unsealed: boolean }).unsealed, true, 'the right key still opens every secret');
    await again.stop();
  } finally {
    await gw.cleanup();
  }
});

test('one user holds at most maxConcurrentScansPerUser of the running scans: another user still starts one', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'], overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { 'rest-api': { options: { scan: { maxConcurrentScans: 3, maxConcurrentScansPerUser: 1 } } } } }) });
  try {
    const admin = await gw.login();
    const other = await gw.userWith(['scan:run', 'devices:read'], 'second-scanner');
    const slow = { range: '127.32.0.0/16', concurrency: 8 };
    const first = await startScan(gw, admin, slow);
    const refused = await gw.request('POST', '/api/scan/start', { token: admin, body: slow });
    assert.equal(refused.status, 429);
    assert.equal(((await refused.json()) as { type: string }).type, 'urn:amt-gateway:problem:GW_ERR_TOO_MANY_USER_SCANS');
    const second = await startScan(gw, other, slow);
    for (const scan of [first, second]) assert.equal((await gw.request('POST', `/api/scan/cancel/${scan.id}`, { token: admin })).status, 200);
  } finally {
    await gw.cleanup();
  }
});
