/**
 * Extra suite (`npm run test:cluster`): the operator's commands with a real PostgreSQL. A LevelDB
 * site moved with `migrate-store` serves its users and sealed credentials from PostgreSQL; a backup
 * of a PostgreSQL store restores into an empty database and into an empty LevelDB data directory
 * (one format); a restore into a database that holds a store is refused.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startTestGateway } from '../helpers/gateway-harness.js';
import { findPostgresBin, skipWithoutPostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { until } from '../helpers/poll.js';
import { adminToken, call, clusterMasterKey, startInstance, stopInstance, type ClusterInstanceProcess } from './cluster-kit.js';
import { startFleet } from '../sim/index.js';
import { SIM_AMT_SETTINGS } from '../helpers/scan-helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs an operator command as the bin does; its status and output. */
function command(args: string[], config: Record<string, unknown>, masterKey: string, dir: string, env: Record<string, string> = {}): { status: number | null; output: string } {
  const file = join(dir, `site-${process.hrtime.bigint()}.json`);
  writeFileSync(file, JSON.stringify(config));
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'core/main.ts'), ...args, '--config', file], {
    cwd: ROOT,
    env: { ...process.env, AMTGW_MASTER_KEY: masterKey, ...env },
    encoding: 'utf8',
  });
  return { status: run.status, output: run.stdout + run.stderr };
}

describe('operating a PostgreSQL site', () => {
  let server: PostgresServer | undefined;
  const dirs: string[] = [];
  const dir = () => {
    const made = mkdtempSync(join(tmpdir(), 'amtgw-ops-'));
    dirs.push(made);
    return made;
  };
  before(async () => {
    if (findPostgresBin()) server = await startPostgres();
  });
  after(async () => {
    await server?.destroy();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('migrate-store moves a LevelDB site into PostgreSQL: its users sign in, its credentials are there under the same master key', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const masterKey = clusterMasterKey();
    const site = await startTestGateway({ plugins: ['rest-api'], masterKey });
    const token = await site.login();
    const credential = await site.request('POST', '/api/credentials', { token, body: { name: 'moved', username: 'admin', password: 'Moved-P@ss1' } });
    assert.equal(credential.status, 201);
    const user = await site.request('POST', '/api/users', { token, body: { username: 'mover', password: 'Mover-P@ssw0rd1', permissions: ['credentials:read'] } });
    assert.equal(user.status, 201);
    await site.stop();
    const url = await server!.createDatabase();
    const config = { dataDir: site.dataDir, plugins: { 'rest-api': { enable: true }, 'soap-mps': { enable: false } } };
    const migrated = command(['migrate-store', '--to', url], config, masterKey, dir());
    assert.equal(migrated.status, 0, migrated.output);
    assert.match(migrated.output, /migrated \d+ records/);
    // A second run finds the database holding a store and writes nothing.
    const again = command(['migrate-store', '--to', url], config, masterKey, dir());
    assert.notEqual(again.status, 0);
    assert.match(again.output, /GW_ERR_RESTORE_TARGET|empty store/);

    const instance = await startInstance('migrated', { storeUrl: url, masterKey });
    try {
      const login = await fetch(`${instance.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'mover', password: 'Mover-P@ssw0rd1' }) });
      assert.equal(login.status, 200);
      const moverToken = ((await login.json()) as { token: string }).token;
      const listed = await call<Array<{ name: string }>>(instance.url, moverToken, 'GET', '/api/credentials');
      assert.deepEqual(listed.body.map((c) => c.name), ['moved']);
    } finally {
      await stopInstance(instance);
      await site.cleanup();
    }
  });

  test('a backup of a PostgreSQL store restores into an empty database and into an empty LevelDB data directory; never over a store', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const masterKey = clusterMasterKey();
    const url = await server!.createDatabase();
    const instance = await startInstance('backed-up', { storeUrl: url, masterKey });
    const token = await adminToken(instance.url);
    assert.equal((await call(instance.url, token, 'POST', '/api/credentials', { name: 'kept', username: 'admin', password: 'Kept-P@ss1' })).status, 201);
    const work = dir();
    const file = join(work, 'site.backup');
    const pgConfig = { dataDir: work, store: { driver: 'postgres', url }, plugins: { 'soap-mps': { enable: false } } };
    const backup = command(['backup', '--out', file], pgConfig, masterKey, work);
    assert.equal(backup.status, 0, backup.output);
    await stopInstance(instance);

    const refused = command(['restore', file], pgConfig, masterKey, work);
    assert.notEqual(refused.status, 0, 'restore into the database it came from (not empty)');
    assert.match(refused.output, /empty store/);

    const fresh = await server!.createDatabase();
    const restored = command(['restore', file], { ...pgConfig, store: { driver: 'postgres', url: fresh } }, masterKey, work);
    assert.equal(restored.status, 0, restored.output);
    const back = await startInstance('restored', { storeUrl: fresh, masterKey });
    try {
      const listed = await call<Array<{ name: string }>>(back.url, await adminToken(back.url), 'GET', '/api/credentials');
      assert.deepEqual(listed.body.map((c) => c.name), ['kept']);
    } finally {
      await stopInstance(back);
    }

    const levelDir = dir();
    const intoLevel = command(['restore', file], { dataDir: levelDir }, masterKey, work);
    assert.equal(intoLevel.status, 0, intoLevel.output);
    const level = await startTestGateway({ plugins: ['rest-api'], masterKey, dataDir: levelDir });
    try {
      const listed = (await (await level.request('GET', '/api/credentials', { token: await level.login() })).json()) as Array<{ name: string }>;
      assert.deepEqual(listed.map((c) => c.name), ['kept']);
    } finally {
      await level.stop();
    }
  });

  test('the master key of a running cluster is rotated without a moment where an instance cannot open a secret', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const oldKey = clusterMasterKey();
    const newKey = clusterMasterKey();
    const url = await server!.createDatabase();
    const work = dir();
    const fleet = await startFleet({ count: 1, base: '127.66.0.1', rmcpPort: 0, seed: 'cluster-rotation' });
    const config = { ...SIM_AMT_SETTINGS };
    const start = (name: string, key: string, next?: string) => startInstance(name, { storeUrl: url, masterKey: key, config, ...(next ? { env: { AMTGW_MASTER_KEY_NEXT: next } } : {}) });
    let a: ClusterInstanceProcess | undefined;
    let b: ClusterInstanceProcess | undefined;
    try {
      a = await start('rot-a', oldKey, newKey);
      b = await start('rot-b', oldKey, newKey);
      const token = await adminToken(a.url);
      assert.equal((await call(a.url, token, 'POST', '/api/credentials', { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true })).status, 201);
      const scan = await call<{ id: string }>(a.url, token, 'POST', '/api/scan/start', { range: '127.66.0.1/32', timeoutMs: 1000 });
      assert.equal(scan.status, 202);
      const deviceId = await until('the device is found', async () => (await call<Array<{ id: string }>>(a!.url, token, 'GET', '/api/devices')).body[0]?.id, 20_000);
      /** A power read signs in to the device: the credential is unsealed on the instance that serves it. */
      const readsEverywhere = async (step: string) => {
        for (const instance of [a!, b!]) {
          const read = await call(instance.url, token, 'GET', `/api/power/${deviceId}`);
          assert.equal(read.status, 200, `${step}, ${instance.name}: ${JSON.stringify(read.body)}`);
        }
      };
      await readsEverywhere('both keys known');
      const pgConfig = { dataDir: work, store: { driver: 'postgres', url } };
      const first = command(['rotate-key'], pgConfig, oldKey, work, { AMTGW_MASTER_KEY_NEXT: newKey });
      assert.equal(first.status, 0, first.output);
      await readsEverywhere('re-sealed under the new key');
      // A credential written now is sealed under the old key by instances that still seal with it.
      await stopInstance(a);
      a = await start('rot-a', newKey, oldKey);
      await readsEverywhere('one instance seals with the new key');
      await stopInstance(b);
      b = await start('rot-b', newKey, oldKey);
      const second = command(['rotate-key'], pgConfig, oldKey, work, { AMTGW_MASTER_KEY_NEXT: newKey });
      assert.equal(second.status, 0, second.output);
      await stopInstance(a);
      a = await start('rot-a', newKey);
      await stopInstance(b);
      b = await start('rot-b', newKey);
      await readsEverywhere('the old key dropped');
      // An instance with the old key alone is refused at start: the store is no longer sealed under it.
      await assert.rejects(startInstance('rot-old', { storeUrl: url, masterKey: oldKey, config }), /not the key the store/);
    } finally {
      if (a) await stopInstance(a);
      if (b) await stopInstance(b);
      await fleet.stop();
    }
  });

  test('an instance that missed writes the change log no longer holds stops with exit code 1 instead of serving what it remembers', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const storeUrl = await server!.createDatabase();
    const instance = await startInstance('gw-behind', { storeUrl, masterKey: clusterMasterKey() });
    try {
      const token = await adminToken(instance.url);
      // Changes 1..5 past the last one are gone from the log, as after an absence longer than store.changeRetentionSeconds.
      const client = new pg.Client({ connectionString: storeUrl });
      await client.connect();
      await client.query('UPDATE gw_change_counter SET seq = seq + 5');
      await client.end();
      await call(instance.url, token, 'POST', '/api/credentials', { name: 'after-the-gap', username: 'admin', password: 'P@ssw0rd-gap' }).catch(() => undefined);
      const code = await Promise.race([instance.process.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 15_000))]);
      assert.equal(code, 1, instance.process.output().split('\n').slice(-5).join('\n'));
      assert.match(instance.process.output(), /missed changes .* restart it/);
    } finally {
      await stopInstance(instance, 'SIGKILL');
    }
  });
});
