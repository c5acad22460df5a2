import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnGateway } from '../helpers/gateway-process.js';

const RECORDER = fileURLToPath(new URL('../fixtures/start-up/record-imports.mjs', import.meta.url));
/** Packages the gateway imports when first used, never to start or to answer its first health check. */
const DEFERRED = ['undici', 'koa-body', 'koa2-swagger-ui', 'strong-soap'];

test('a gateway with the default plugins starts and answers its first health check without importing what it defers', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'amtgw-imports-'));
  const importsFile = join(dataDir, 'imports.txt');
  try {
    const proc = await spawnGateway(dataDir, {}, { AMTGW_TEST_IMPORTS_FILE: importsFile }, ['--import', RECORDER]);
    const url = await proc.serving;
    assert.equal((await fetch(`${url}/api/health`)).status, 200);
    proc.child.kill('SIGTERM');
    assert.equal(await proc.exited, 0);
    const imported = new Set((await readFile(importsFile, 'utf8')).split('\n').filter(Boolean));
    assert.ok(imported.has('koa') && imported.has('level'), 'the recorder sees the packages the start needs');
    assert.deepEqual(DEFERRED.filter((name) => imported.has(name)), []);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
