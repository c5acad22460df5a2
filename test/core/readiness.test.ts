/** Readiness: `/api/health/ready` reports the store, the worker pool, every plugin and the checks plugins add; 503 names what is not ready. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestGateway } from '../helpers/gateway-harness.js';

const PROBE = fileURLToPath(new URL('../fixtures/plugins/readiness-probe/', import.meta.url));

type Report = { status: string; checks: Array<{ name: string; ready: boolean; reason?: string }> };

test('readiness answers 200 with every check, and 503 naming the plugin check that fails, without a token; liveness stays 200', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'], overrides: { plugins: { 'readiness-probe': { enable: true, path: PROBE } } } });
  try {
    const ready = await gw.request('GET', '/api/health/ready');
    assert.equal(ready.status, 200);
    const report = (await ready.json()) as Report;
    assert.equal(report.status, 'ready');
    assert.deepEqual(report.checks.map((c) => c.name).sort(), ['plugin:devices', 'plugin:readiness-probe', 'plugin:readiness-probe/upstream', 'plugin:rest-api', 'store', 'workers']);
    assert.ok(report.checks.every((c) => c.ready && c.reason === undefined));

    const token = await gw.login();
    assert.equal((await gw.request('PUT', '/api/readiness-probe/state', { token, body: { ready: false, reason: 'upstream unreachable' } })).status, 204);
    const notReady = await gw.request('GET', '/api/health/ready');
    assert.equal(notReady.status, 503);
    assert.match(notReady.headers.get('content-type') ?? '', /^application\/json/);
    const failing = ((await notReady.json()) as Report).checks.filter((c) => !c.ready);
    assert.deepEqual(failing, [{ name: 'plugin:readiness-probe/upstream', ready: false, reason: 'upstream unreachable' }]);
    await gw.request('PUT', '/api/readiness-probe/state', { token, body: { ready: false, reason: "ENOENT: no such file or directory, open '/srv/amt-gateway/data/upstream.sock'" } });
    const pathless = ((await (await gw.request('GET', '/api/health/ready')).json()) as Report).checks.find((c) => !c.ready);
    assert.equal(pathless?.reason, "ENOENT: no such file or directory, open 'upstream.sock'", 'no path in an unauthenticated answer');
    const live = await gw.request('GET', '/api/health');
    assert.equal(live.status, 200);
    assert.equal(((await live.json()) as { status: string }).status, 'ok');

    await gw.request('PUT', '/api/readiness-probe/state', { token, body: { ready: true, hang: true } });
    const started = Date.now();
    const hung = await gw.request('GET', '/api/health/ready');
    assert.equal(hung.status, 503);
    assert.ok(Date.now() - started < 4000, 'a hanging check is cut off');
    assert.match(((await hung.json()) as Report).checks.find((c) => c.name === 'plugin:readiness-probe/upstream')?.reason ?? '', /no answer within 2000 ms/);
  } finally {
    await gw.cleanup();
  }
});

test('the worker pool is not ready once closed', async () => {
  const { createWorkerPool } = await import('../../core/pool/worker-pool.js');
  const pool = createWorkerPool({ threads: 1, concurrentTasksPerWorker: 1, maxQueue: 1, idleTimeoutMs: 1000 });
  assert.deepEqual(pool.status(), { ready: true });
  await pool.close();
  assert.deepEqual(pool.status(), { ready: false, reason: 'the worker pool is closed' });
});
