/**
 * Extra suite (`npm run test:cluster`): gateway processes starting on a PostgreSQL store. Three
 * started at once on an empty database, none given AMTGW_ADMIN_PASSWORD: exactly one creates
 * `admin` (one password generated, printed once and written to one file) and every instance accepts
 * it. A plugin registering a device turn provider of its own is refused where the cluster's turn is
 * the gate's. Skips without PostgreSQL unless AMTGW_REQUIRE_POSTGRES=1.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { findPostgresBin, skipWithoutPostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { call, clusterMasterKey, startInstance, stopInstance, type ClusterInstanceProcess } from './cluster-kit.js';

const EXTENDER = fileURLToPath(new URL('../fixtures/plugins/gate-users/gate-extender.ts', import.meta.url));
const PRINTED = /created user 'admin' with password (\S+)/g;
/** Rounds of three simultaneous starts, each on a database of its own: the race is timing-dependent. */
const ROUNDS = 3;

async function signIn(url: string, password: string): Promise<{ status: number; token?: string }> {
  const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
  const body = (await res.json()) as { token?: string };
  return { status: res.status, token: body.token };
}

describe('gateway instances starting on a PostgreSQL store', () => {
  let server: PostgresServer | undefined;
  let instances: ClusterInstanceProcess[] = [];

  before(async () => {
    if (!findPostgresBin()) return;
    server = await startPostgres();
  });
  after(async () => {
    for (const instance of instances) await stopInstance(instance, 'SIGKILL').catch(() => undefined);
    await server?.destroy();
  });

  test('exactly one creates admin: one generated password, printed once, in one file, accepted by every instance', async (t) => {
    if (skipWithoutPostgres(t)) return;
    for (let round = 0; round < ROUNDS; round++) {
      const storeUrl = await server!.createDatabase();
      const masterKey = clusterMasterKey();
      // An empty AMTGW_ADMIN_PASSWORD: each instance would generate its own were it to bootstrap.
      instances = await Promise.all(['gw-a', 'gw-b', 'gw-c'].map((name) => startInstance(`${name}-${round}`, { storeUrl, masterKey, env: { AMTGW_ADMIN_PASSWORD: '' } })));
      const printed = instances.flatMap((i) => [...i.process.output().matchAll(PRINTED)].map((m) => m[1]!));
      assert.equal(printed.length, 1, `round ${round}: ${printed.length} instances printed a generated admin password`);
      const password = printed[0]!;
      const files = instances.map((i) => join(i.dataDir, 'admin-password')).filter((file) => existsSync(file));
      assert.equal(files.length, 1, `round ${round}: ${files.length} password files`);
      assert.equal(readFileSync(files[0]!, 'utf8').trim(), password);
      for (const instance of instances) {
        const login = await signIn(instance.url, password);
        assert.equal(login.status, 200, `round ${round}: ${instance.name} refuses the printed password`);
      }
      const token = (await signIn(instances[0]!.url, password)).token!;
      const users = await call<Array<{ username: string }>>(instances[2]!.url, token, 'GET', '/api/users');
      assert.deepEqual(users.body.map((u) => u.username), ['admin']);
      for (const instance of instances) await stopInstance(instance, 'SIGKILL');
      instances = [];
    }
  });

  test("a plugin's own device turn provider is refused: in a cluster the gate's turn provider is the cluster's turn", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const storeUrl = await server!.createDatabase();
    const outcome = await startInstance('gw-extended', { storeUrl, masterKey: clusterMasterKey(), config: { plugins: { 'gate-extender': { enable: true, path: EXTENDER } } } }).catch((err: Error) => err);
    if (!(outcome instanceof Error)) await stopInstance(outcome, 'SIGKILL');
    assert.ok(outcome instanceof Error, 'the instance started with a second turn provider');
    assert.match(outcome.message, /plugin 'gate-extender' failed to register: the device turn provider of plugin 'gate-extender' clashes with the one plugin 'devices \(cluster\)' registered/);
  });
});
