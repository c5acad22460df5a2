/**
 * Extra suite (`npm run test:cluster`): what the plugins merged beside the cluster keep, on two
 * gateway processes and one real PostgreSQL. Their records are tables with the columns their
 * queries need; what an instance mirrors in memory follows the other's writes (activation profiles,
 * records numbered once across the cluster, approvals given on one instance for an activation
 * waiting on the other, boot images in a shared image directory). Skips without PostgreSQL unless
 * AMTGW_REQUIRE_POSTGRES=1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { ActivationApproval, ActivationRecord } from '../../plugins/activation/api.js';
import { SimMachine } from '../sim/activation/sim-machine.js';
import { runAgent } from '../sim/activation/sim-agent.js';
import { findPostgresBin, skipWithoutPostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { mergeConfig } from '../../core/config/load-config.js';
import { SIM_AMT_SETTINGS } from '../helpers/scan-helpers.js';
import { until } from '../helpers/poll.js';
import { adminToken, call, clusterMasterKey, startInstance, stopInstance, type ClusterInstanceProcess } from './cluster-kit.js';

describe("the other plugins' records on two gateway instances", () => {
  let server: PostgresServer | undefined;
  let instances: ClusterInstanceProcess[] = [];
  let token = '';
  let storeUrl = '';
  const machines: SimMachine[] = [];
  const imageDir = mkdtempSync(join(tmpdir(), 'amtgw-shared-images-'));
  const wsUrl = (instance: ClusterInstanceProcess) => `${instance.url.replace(/^http/, 'ws')}/activate`;

  before(async () => {
    if (!findPostgresBin()) return;
    server = await startPostgres();
    storeUrl = await server.createDatabase();
    const config = mergeConfig(SIM_AMT_SETTINGS, {
      plugins: {
        'soap-mps': { enable: true, options: { port: 0 } },
        'remote-monitor': { enable: false },
        activation: { enable: true, options: { stepTimeoutMs: 10_000, approvalWaitSeconds: 30, heartbeatSeconds: 1 } },
        redirection: { enable: true },
        images: { enable: true, options: { directory: imageDir } },
      },
    });
    const masterKey = clusterMasterKey();
    instances = await Promise.all(['gw-a', 'gw-b'].map((name) => startInstance(name, { storeUrl, masterKey, config })));
    token = await adminToken(instances[0]!.url);
  });
  after(async () => {
    for (const machine of machines) await machine.stop().catch(() => undefined);
    for (const instance of instances) await stopInstance(instance, 'SIGKILL').catch(() => undefined);
    await server?.destroy();
    rmSync(imageDir, { recursive: true, force: true });
  });

  test('users, tokens, audit classes, activation, images and SOAP subscriptions are tables with the columns their queries need', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const client = new pg.Client({ connectionString: storeUrl });
    await client.connect();
    try {
      const columns = async (table: string) =>
        (await client.query<{ column_name: string }>('SELECT column_name FROM information_schema.columns WHERE table_name = $1', [table])).rows.map((r) => r.column_name).sort();
      const indexed = async (table: string) => (await client.query<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE tablename = $1', [table])).rows.map((r) => r.indexdef).join('\n');
      assert.ok((await columns('gw_users')).includes('user_id'));
      assert.match(await indexed('gw_tokens'), /\(user_id, key\)/, 'a user\'s tokens are found by its id');
      assert.ok((await columns('audit_records')).includes('record_class'));
      assert.ok((await columns('device_credentials')).includes('bound_to'));
      assert.ok((await columns('soap_subscriptions')).includes('delivery'));
      assert.match(await indexed('soap_subscriptions'), /\(subscriber, key\)/);
      for (const table of ['activation_profiles', 'activation_domains', 'activation_records', 'activation_approvals', 'activation_approval_requests', 'boot_images']) {
        assert.ok((await columns(table)).includes('value'), `${table} is a table`);
      }
      assert.match(await indexed('activation_records'), /\(uuid, key\)/);
      // The admin's record, as psql shows it: its id beside its name, its hash sealed.
      const admin = await client.query<{ user_id: string; hash: string }>("SELECT user_id, value->>'passwordHash' AS hash FROM gw_users WHERE key = 'admin'");
      assert.match(admin.rows[0]!.user_id, /^[0-9a-f-]{36}$/);
      assert.match(admin.rows[0]!.hash, /^v1\./, 'sealed');
    } finally {
      await client.end();
    }
  });

  test('a profile made on one instance is there on the other; two activations at once on two instances get two record numbers', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const [a, b] = instances as [ClusterInstanceProcess, ClusterInstanceProcess];
    assert.equal((await call(a.url, token, 'POST', '/api/activation/profiles', { name: 'ccm', mode: 'ccm' })).status, 201);
    await until('gw-b has the profile', async () => (await call<Array<{ name: string }>>(b.url, token, 'GET', '/api/activation/profiles')).body.some((p) => p.name === 'ccm'), 1000);
    for (let i = 0; i < 2; i++) {
      const machine = new SimMachine({ index: i, address: `127.77.9.${i + 1}` });
      await machine.start();
      machines.push(machine);
    }
    const results = await Promise.all(machines.map((machine, i) => runAgent({ url: wsUrl(instances[i]!), machine, command: 'activate', profile: 'ccm' })));
    for (const result of results) assert.equal(result.outcome, 'success', result.message);
    const records = await call<ActivationRecord[]>(b.url, token, 'GET', '/api/activation/records');
    const ours = records.body.filter((r) => machines.some((m) => m.uuid === r.uuid));
    assert.equal(ours.length, 2, 'one record each: neither overwrote the other');
    assert.notEqual(ours[0]!.id, ours[1]!.id);
  });

  test('an activation waiting on one instance is listed on the other and goes on once approved there', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const [a, b] = instances as [ClusterInstanceProcess, ClusterInstanceProcess];
    const machine = machines[0]!;
    machine.firmware.unprovision();
    const running = runAgent({ url: wsUrl(a), machine, command: 'activate', profile: 'ccm' });
    const waiting = await until('gw-b lists the waiting activation', async () => (await call<ActivationApproval[]>(b.url, token, 'GET', '/api/activation/approvals')).body.find((x) => x.uuid === machine.uuid && x.recordId));
    assert.ok(waiting.requestedAt, 'with when it asked');
    const approved = await call<ActivationApproval>(b.url, token, 'POST', `/api/activation/approvals/${machine.uuid}`);
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    const result = await running;
    assert.equal(result.outcome, 'success', result.message);
    await until('nothing waits any more, on either instance', async () => {
      const lists = await Promise.all(instances.map((i) => call<ActivationApproval[]>(i.url, token, 'GET', '/api/activation/approvals')));
      return lists.every((l) => !l.body.some((x) => x.uuid === machine.uuid && x.recordId));
    }, 2000);
  });

  test('an image uploaded through one instance is listed and available on the other; deleted there, it is gone from both', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const [a, b] = instances as [ClusterInstanceProcess, ClusterInstanceProcess];
    const uploaded = await fetch(`${a.url}/api/images?name=shared-floppy&kind=floppy`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(1_474_560, 7),
    });
    assert.equal(uploaded.status, 201, await uploaded.clone().text());
    const { id } = (await uploaded.json()) as { id: string };
    await until('gw-b lists it available', async () => (await call<Array<{ id: string; available: boolean }>>(b.url, token, 'GET', '/api/images')).body.some((i) => i.id === id && i.available), 2000);
    assert.equal((await call(b.url, token, 'DELETE', `/api/images/${id}`)).status, 204);
    await until('gw-a no longer lists it', async () => !(await call<Array<{ id: string }>>(a.url, token, 'GET', '/api/images')).body.some((i) => i.id === id), 1000);
  });

  // Last: the admin steps down.
  test('two managers on two instances deleting each other at once never leave the cluster without a manager (10 rounds)', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const [a, b] = instances as [ClusterInstanceProcess, ClusterInstanceProcess];
    const signIn = async (instance: ClusterInstanceProcess, name: string) => {
      const res = await fetch(`${instance.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: name, password: `${name}-P@ssw0rd` }) });
      assert.equal(res.status, 200, `${name} signs in on ${instance.name}`);
      return ((await res.json()) as { token: string }).token;
    };
    const create = async (by: string, name: string) => assert.equal((await call(a.url, by, 'POST', '/api/users', { username: name, password: `${name}-P@ssw0rd`, permissions: ['users:manage'] })).status, 201);
    await create(token, 'm0');
    assert.equal((await call(b.url, token, 'PUT', '/api/users/admin', { permissions: [] })).status, 200);
    let survivor = { name: 'm0', token: await signIn(a, 'm0') };
    for (let round = 1; round <= 10; round++) {
      const name = `m${round}`;
      await create(survivor.token, name);
      const other = { name, token: await until(`${name} known on gw-b`, () => signIn(b, name).catch(() => undefined), 2000) };
      const [one, two] = await Promise.all([call(a.url, survivor.token, 'DELETE', `/api/users/${other.name}`), call(b.url, other.token, 'DELETE', `/api/users/${survivor.name}`)]);
      assert.equal([one.status, two.status].filter((s) => s === 204).length, 1, `round ${round}: exactly one deletion went through (${one.status}, ${two.status})`);
      survivor = one.status === 204 ? survivor : other;
      const managers = await until(`round ${round}: both instances agree`, async () => {
        const lists = await Promise.all(instances.map((i) => call<Array<{ username: string; permissions: string[] }>>(i.url, survivor.token, 'GET', '/api/users')));
        const names = lists.map((l) => l.body.filter((u) => u.permissions.includes('users:manage')).map((u) => u.username).join());
        return names[0] === names[1] ? names[0] : undefined;
      }, 2000);
      assert.equal(managers, survivor.name, `round ${round}`);
    }
  });
});
