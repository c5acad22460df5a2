import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../core/config/load-config.js';
import { startGateway } from '../../core/kernel.js';
import { startTestGateway } from '../helpers/gateway-harness.js';

/** A third-party plugin with one route whose body schema cannot compile (a `$ref` to nothing). */
const BROKEN_ROUTE = `export default {
  name: 'broken-route', version: '1.0.0', kernel: '1',
  register(ctx) {
    ctx.http.route({ method: 'post', path: '/broken', summary: 'Broken', permission: 'public',
      body: { type: 'object', properties: { a: { $ref: '#/components/schemas/Nowhere' } } },
      responses: { 204: { description: 'Done' } }, handler: () => undefined });
    ctx.http.route({ method: 'get', path: '/fine', summary: 'Fine', permission: 'public',
      responses: { 200: { description: 'Fine', schema: { type: 'object' } } }, handler: () => ({ fine: true }) });
  },
};
`;

async function withBrokenPlugin(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-broken-route-'));
  try {
    await writeFile(join(dir, 'index.mjs'), BROKEN_ROUTE);
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('a start compiles no route validator: a route whose schema does not compile fails only when called', async () => {
  await withBrokenPlugin(async (dir) => {
    const dataDir = join(dir, 'data');
    const env = { AMTGW_ADMIN_PASSWORD: 'admin-test-password-1' };
    const config = loadConfig({ env, overrides: { dataDir, server: { host: '127.0.0.1', port: 0 }, log: { level: 'silent' }, plugins: { 'broken-route': { enable: true, path: dir } } } });
    const gateway = await startGateway(config, { env });
    try {
      assert.equal((await fetch(`${gateway.url}/api/broken-route/fine`)).status, 200);
      const res = await fetch(`${gateway.url}/api/broken-route/broken`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(res.status, 500);
    } finally {
      await gateway.stop();
    }
  });
});

test('a gateway started with checkSchemas (the tests) compiles every route validator at start and refuses a broken one', async () => {
  await withBrokenPlugin(async (dir) => {
    await assert.rejects(startTestGateway({ overrides: { plugins: { 'broken-route': { enable: true, path: dir } } } }), /can't resolve reference #\/components\/schemas\/Nowhere|Nowhere/);
  });
});
