import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFleet } from '../../sim/fleet.js';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { spawnGateway } from '../../helpers/gateway-process.js';
import { SIM_AMT_SETTINGS, SIM_RMCP_PORT } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';

const ONLY_REST_API = { 'rest-api': { enable: true, options: { scan: { interrogationConcurrency: 4 } } }, 'route-permissions': { enable: false }, 'scan-hub': { enable: false }, 'remote-monitor': { enable: false }, 'power-mgmt': { enable: false }, 'soap-mps': { enable: false } };

interface ScanView {
  status: string;
  total: number;
  scanned: number;
  found: number;
}

test('a scan killed during interrogation is restored with the counts of the devices stored under it', async () => {
  const fleet = await startFleet({ count: 300, base: '127.113.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'kill-counts' });
  const masterKey = randomBytes(32).toString('base64');
  const gw0 = await startTestGateway({ plugins: ['rest-api'], masterKey });
  const dataDir = gw0.dataDir;
  await gw0.stop();
  const proc = await spawnGateway(dataDir, mergeConfig(SIM_AMT_SETTINGS, { plugins: ONLY_REST_API }), { AMTGW_MASTER_KEY: masterKey });
  let scanId = '';
  let before: ScanView | undefined;
  try {
    const url = await proc.serving;
    const call = async (method: string, path: string, token?: string, body?: unknown) =>
      fetch(url + path, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}) });
    const { token } = (await (await call('POST', '/api/auth/login', undefined, { username: 'admin', password: 'admin-test-password-1' })).json()) as { token: string };
    assert.equal((await call('POST', '/api/credentials', token, { username: 'admin', password: 'P@ssw0rd1' })).status, 201);
    const res = await call('POST', '/api/scan/start', token, { range: '127.113.0.0/23', concurrency: 512 });
    assert.equal(res.status, 202);
    scanId = ((await res.json()) as { id: string }).id;
    // Kill once the interrogations are well under way, between two progress saves.
    for (let i = 0; i < 400; i++) {
      before = (await (await call('GET', `/api/scan/${scanId}`, token)).json()) as ScanView;
      if (before.status !== 'running' || before.found >= 40) break;
      await sleep(25);
    }
    assert.equal(before?.status, 'running', 'the scan was still interrogating when killed');
    assert.ok(before!.found < 300);
  } finally {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
  const gw = await startTestGateway({ plugins: ['rest-api'], dataDir, masterKey });
  try {
    const token = await gw.login();
    const scan = (await (await gw.request('GET', `/api/scan/${scanId}`, { token })).json()) as ScanView;
    const devices = (await (await gw.request('GET', '/api/devices', { token })).json()) as Array<{ lastScanId: string | null }>;
    const storedUnder = devices.filter((d) => d.lastScanId === scanId).length;
    assert.equal(scan.status, 'interrupted');
    assert.ok(storedUnder >= before!.found, `at least the ${before!.found} devices seen before the kill are stored`);
    assert.equal(scan.found, storedUnder, 'found equals the devices stored under the scan');
    assert.ok(scan.scanned >= scan.found && scan.scanned <= scan.total);
    // 300 devices in a /23: 212 silent addresses at most besides the devices stored.
    assert.ok(scan.scanned <= scan.found + 212, `scanned ${scan.scanned} counts no device left unread (found ${scan.found})`);
  } finally {
    await gw.cleanup();
    await gw0.cleanup();
    await fleet.stop();
  }
});
