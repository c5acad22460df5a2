/**
 * Extra suite (`npm run test:cluster`): three gateway processes started at once on an empty
 * PostgreSQL database, none given AMTGW_ADMIN_PASSWORD. Exactly one creates `admin`: one password
 * generated, printed once and written to one file, and every instance accepts it. Skips without
 * PostgreSQL unless AMTGW_REQUIRE_POSTGRES=1.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { findPostgresBin, skipWithoutPostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { call, clusterMasterKey, startInstance, stopInstance, type ClusterInstanceProcess } from './cluster-kit.js';

const PRINTED = /created user 'admin' with password (\S+)/g;
/** Rounds of three simultaneous starts, each on a database of its own: the race is timing-dependent. */
const ROUNDS = 3;

async function signIn(url: string, password: string): Promise<{ status: number; token?: string }> {
  const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
  const body = (await res.json()) as { token?: string };
  return { status: res.status, token: body.token };
}

describe('three instances started at once on an empty database', () => {
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
});
