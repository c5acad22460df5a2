import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnGateway } from '../helpers/gateway-process.js';
import { startTestGateway } from '../helpers/gateway-harness.js';

const EXAMPLE = fileURLToPath(new URL('../fixtures/plugins/example-plugin/', import.meta.url));
const ONLY_EXAMPLE = { plugins: { 'rest-api': { enable: true }, 'route-permissions': { enable: false }, 'scan-hub': { enable: false }, 'remote-monitor': { enable: false }, 'power-mgmt': { enable: false }, 'soap-mps': { enable: false }, 'example-plugin': { enable: true, path: EXAMPLE } } };

test('a second process on the same data directory gets a clear "already in use" error', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'] });
  try {
    const second = await spawnGateway(gw.dataDir, ONLY_EXAMPLE, { AMTGW_MASTER_KEY: gw.masterKey });
    await assert.rejects(second.serving);
    assert.equal(await second.exited, 1);
    assert.match(second.output(), /cannot start: data directory .* is already in use by another amt-gateway process \(GW_ERR_STORE_LOCKED\)/);
    const token = await gw.login();
    assert.equal((await gw.request('GET', '/api/credentials', { token })).status, 200, 'the first process is unaffected');
  } finally {
    await gw.cleanup();
  }
});

test('SIGTERM lets in-flight requests finish, runs plugin teardown, closes the store and exits 0', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'amtgw-proc-'));
  try {
    const proc = await spawnGateway(dataDir, ONLY_EXAMPLE);
    const url = await proc.serving;
    const login = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin-test-password-1' }) });
    const { token } = (await login.json()) as { token: string };
    const slow = fetch(`${url}/api/example-plugin/slow?ms=800`, { headers: { authorization: `Bearer ${token}` } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    proc.child.kill('SIGTERM');
    const res = await slow;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { waitedMs: 800 });
    assert.equal(await proc.exited, 0);
    const out = proc.output();
    assert.ok(out.indexOf('example plugin closed') > out.indexOf('"signal":"SIGTERM"'), 'teardown ran after the signal');
    assert.match(out, /gateway stopped/);
    await assert.rejects(fetch(`${url}/api/health`), 'no longer accepting');
    const masterKey = (await readFile(join(dataDir, 'master.key'), 'utf8')).trim();
    const again = await startTestGateway({ plugins: ['rest-api'], dataDir, masterKey });
    await again.stop();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
