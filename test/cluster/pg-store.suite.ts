/**
 * Extra suite (`npm run test:cluster`, run by .ci/run): the PostgreSQL driver of the store against
 * a real server, beside the LevelDB driver where both must behave alike. Without PostgreSQL it
 * skips, unless AMTGW_REQUIRE_POSTGRES=1 (CI) makes a missing server a failure.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openStore } from '../../core/store/level-store.js';
import { openPostgresStore, type PostgresStore } from '../../core/store/postgres/pg-store.js';
import type { GatewayStore } from '../../core/store/gateway-store.js';
import type { PlacedCollection } from '../../core/store/collections.js';
import { SCHEMA_VERSION } from '../../core/store/postgres/pg-schema.js';
import { findPostgresBin, skipWithoutPostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { until } from '../helpers/poll.js';
import { registerInstance } from '../../core/cluster/instances.js';
import { createLogger } from '../../core/log/logger.js';

const DEVICES: PlacedCollection = {
  path: ['plugin:rest-api', 'devices'],
  table: 'devices',
  description: 'devices',
  fields: { ip_address: { path: 'ipAddress', type: 'inet' }, hostname: { path: 'hostname', type: 'text' }, online: { path: 'online', type: 'boolean' }, ports: { path: 'ports.count', type: 'integer' } },
  indexes: [['ip_address'], ['hostname']],
};

describe('PostgreSQL store', () => {
  let server: PostgresServer | undefined;
  const open: GatewayStore[] = [];
  const dirs: string[] = [];
  const pgStore = async (url: string, collections: PlacedCollection[] = [DEVICES]) => {
    const store = await openPostgresStore({ url, collections });
    open.push(store);
    return store;
  };
  before(async () => {
    if (findPostgresBin()) server = await startPostgres();
  });
  after(async () => {
    for (const store of open) await store.close().catch(() => undefined);
    await server?.destroy();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test('reads and writes like the LevelDB driver: get, getMany, batch, pages by prefix and range, reverse, limit', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const dir = mkdtempSync(join(tmpdir(), 'amtgw-level-'));
    dirs.push(dir);
    const level = await openStore(dir);
    open.push(level);
    const postgres = await pgStore(await server!.createDatabase());
    const seen: unknown[] = [];
    for (const store of [level, postgres]) {
      for (const ns of [store.namespace('plugin:rest-api').namespace('devices'), store.namespace('plugin:x').namespace('y')]) {
        await ns.batch([
          { type: 'put', key: 'b', value: { ipAddress: '10.0.0.2', n: 2 } },
          { type: 'put', key: 'a', value: { ipAddress: '10.0.0.1', n: 1, nested: { deep: [1, 'x', null] } } },
          { type: 'put', key: 'ab', value: false },
          { type: 'put', key: 'c', value: 'text' },
          { type: 'del', key: 'c' },
        ]);
        await ns.put('d', 4);
        await assert.rejects(ns.put('e', null), /null or undefined/, 'null is refused by both');
        await ns.del('zz');
        const pages: Array<Array<[string, unknown]>> = [];
        for await (const page of ns.pages({ size: 2 })) pages.push(page);
        const entries = async (options: object) => {
          const out: Array<[string, unknown]> = [];
          for await (const entry of ns.entries(options)) out.push(entry);
          return out;
        };
        seen.push({
          get: await ns.get('a'),
          missing: await ns.get('c'),
          nullValue: await ns.get('ab'),
          many: await ns.getMany(['d', 'nope', 'b']),
          pages: pages.map((p) => p.map(([k]) => k)),
          prefix: (await entries({ prefix: 'a' })).map(([k]) => k),
          reverse: (await entries({ reverse: true, limit: 3 })).map(([k]) => k),
          range: (await (async () => {
            const out: string[] = [];
            for await (const page of ns.pages({ gte: 'ab', lt: 'd' })) out.push(...page.map(([k]) => k));
            return out;
          })()),
        });
      }
    }
    assert.deepEqual(seen[2], seen[0], 'a declared collection reads as LevelDB does');
    assert.deepEqual(seen[3], seen[1], 'an undeclared namespace reads as LevelDB does');
    assert.deepEqual((seen[0] as { pages: string[][] }).pages, [['a', 'ab'], ['b', 'd']]);
  });

  test('take: of three instances taking one key at once exactly one gets its value, in a table and in the key-value namespace; the others see it gone', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const url = await server!.createDatabase();
    const stores = [await pgStore(url), await pgStore(url), await pgStore(url)];
    const spaces = [
      (store: GatewayStore) => store.namespace('plugin:rest-api').namespace('devices'),
      (store: GatewayStore) => store.namespace('plugin:activation').namespace('codes'),
    ];
    for (const space of spaces) {
      for (let round = 0; round < 20; round++) {
        const key = `k${round}`;
        await space(stores[0]!).put(key, { round, ipAddress: '10.0.0.1' });
        const taken = await Promise.all(stores.flatMap((store) => [space(store).take<{ round: number }>(key), space(store).take<{ round: number }>(key)]));
        const winners = taken.filter((v) => v !== undefined);
        assert.deepEqual(winners.map((v) => v.round), [round], `round ${round}: one take gets the value`);
        for (const store of stores) assert.equal(await space(store).get(key), undefined);
      }
      assert.equal(await space(stores[1]!).take('never'), undefined, 'a missing key gives undefined');
    }
  });

  test('a declared collection is a table with its fields as typed, indexed columns, readable with SQL', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const url = await server!.createDatabase();
    const store = await pgStore(url);
    const devices = store.namespace('plugin:rest-api').namespace('devices');
    await devices.put('d1', { ipAddress: '10.0.0.9', hostname: 'pc-9', online: true, ports: { count: 3 } });
    await devices.put('d2', { ipAddress: 'not an address', hostname: null, online: 'yes', ports: { count: 'many' } });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = await client.query("SELECT key, host(ip_address) AS ip, hostname, online, ports FROM devices ORDER BY key");
      assert.deepEqual(rows.rows, [
        { key: 'd1', ip: '10.0.0.9', hostname: 'pc-9', online: true, ports: 3 },
        { key: 'd2', ip: null, hostname: null, online: null, ports: null },
      ]);
      const indexes = await client.query("SELECT indexname FROM pg_indexes WHERE tablename = 'devices' ORDER BY indexname");
      assert.deepEqual(indexes.rows.map((r) => r.indexname), ['devices_by_hostname', 'devices_by_ip_address', 'devices_pkey']);
      const kv = await client.query('SELECT count(*)::int AS n FROM gw_kv');
      assert.equal(kv.rows[0].n, 0, 'declared records are not in the key-value table');
      assert.equal((await client.query('SELECT version FROM gw_schema')).rows[0].version, SCHEMA_VERSION);
    } finally {
      await client.end();
    }
  });

  test('several instances migrating one empty database at once: one migrates, all open; a changed declaration alters the table', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const url = await server!.createDatabase();
    const stores = await Promise.all([pgStore(url), pgStore(url), pgStore(url)]);
    await stores[0]!.namespace('plugin:rest-api').namespace('devices').put('k', { ipAddress: '10.1.1.1', hostname: 'h', model: 'x' });
    const changed: PlacedCollection = { ...DEVICES, fields: { ...DEVICES.fields, model: { path: 'model', type: 'text' } }, indexes: [['model']] };
    const next = await pgStore(url, [changed]);
    assert.deepEqual(await next.namespace('plugin:rest-api').namespace('devices').get('k'), { ipAddress: '10.1.1.1', hostname: 'h', model: 'x' });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      assert.deepEqual((await client.query('SELECT model FROM devices')).rows, [{ model: 'x' }]);
      const indexes = await client.query("SELECT indexname FROM pg_indexes WHERE tablename = 'devices' ORDER BY indexname");
      assert.deepEqual(indexes.rows.map((r) => r.indexname), ['devices_by_model', 'devices_pkey']);
    } finally {
      await client.end();
    }
  });

  test('raw entries: the same keys and JSON text as LevelDB, so a backup moves between drivers', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const dir = mkdtempSync(join(tmpdir(), 'amtgw-level-'));
    dirs.push(dir);
    const level = await openStore(dir);
    open.push(level);
    await level.namespace('core').namespace('users').put('alice', { username: 'alice', b: 1, a: 2 });
    await level.namespace('plugin:rest-api').namespace('devices').put('d', { ipAddress: '10.0.0.1', z: 1, a: [1.5, 'é'] });
    await level.namespace('plugin:other').put('x', true);
    const raw: Array<[string, string]> = [];
    for await (const page of level.rawPages()) raw.push(...page);
    const postgres = await pgStore(await server!.createDatabase());
    await postgres.rawBatch(raw.map(([key, value]) => ({ type: 'put', key, value })));
    const back: Array<[string, string]> = [];
    for await (const page of postgres.rawPages()) back.push(...page);
    assert.deepEqual([...back].sort(), [...raw].sort());
    assert.deepEqual(await postgres.namespace('plugin:rest-api').namespace('devices').get('d'), { ipAddress: '10.0.0.1', z: 1, a: [1.5, 'é'] });
  });

  test("another instance's writes reach onRemoteChange in commit order, its own do not", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const url = await server!.createDatabase();
    const a = await pgStore(url);
    const b = await pgStore(url);
    const heardA: Array<[string, unknown]> = [];
    const heardB: Array<[string, unknown]> = [];
    a.namespace('plugin:x').onRemoteChange((k, v) => heardA.push([k, v]));
    b.namespace('plugin:x').onRemoteChange((k, v) => heardB.push([k, v]));
    await a.follow();
    await b.follow();
    const ns = a.namespace('plugin:x');
    for (let i = 0; i < 50; i++) await ns.put('k', i);
    await ns.del('k');
    await b.namespace('plugin:x').put('from-b', 1);
    await until('b hears a', () => heardB.length === 51, 5000);
    assert.deepEqual(heardB.at(-2), ['k', 49]);
    assert.deepEqual(heardB.at(-1), ['k', undefined]);
    assert.deepEqual(heardB.map(([, v]) => v).slice(0, 50), Array.from({ length: 50 }, (_, i) => i));
    await until('a hears b', () => heardA.length === 1, 5000);
    assert.deepEqual(heardA, [['from-b', 1]]);
  });

  test('PostgreSQL restarted: writes during the outage fail with 503 and change nothing; afterwards both serve, and nothing missed is lost', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const url = await server!.createDatabase();
    const a = await pgStore(url);
    const b: PostgresStore = await pgStore(url);
    const heard: Array<[string, unknown]> = [];
    b.namespace('plugin:x').onRemoteChange((k, v) => heard.push([k, v]));
    await a.follow();
    await b.follow();
    await a.namespace('plugin:x').put('before', 1);
    await until('b hears the first write', () => heard.length === 1, 5000);
    await server!.stop('immediate');
    await assert.rejects(a.namespace('plugin:x').put('during', 1), (err: { status?: number; code?: string }) => err.status === 503 && err.code === 'GW_ERR_STORE_UNAVAILABLE');
    assert.equal(a.status().state, 'unavailable');
    await server!.start();
    // The pool and the listener reconnect on their own; the first statements after a restart may still fail.
    await until('a writes again', async () => a.namespace('plugin:x').put('after', 1).then(() => true, () => false), 15000);
    for (let i = 0; i < 20; i++) await a.namespace('plugin:x').put('after', i);
    await until('b hears what was written after the restart', () => heard.at(-1)?.[1] === 19, 15000);
    assert.equal(a.status().state, 'ok');
    assert.equal(await a.namespace('plugin:x').get('during'), undefined, 'the refused write left nothing');
    assert.deepEqual(heard.filter(([k]) => k === 'during'), []);
    const values = heard.filter(([k]) => k === 'after').map(([, v]) => v);
    assert.deepEqual(values.slice(-20), Array.from({ length: 20 }, (_, i) => i), 'in order, none lost');
  });

  test('a follower disconnected while others write catches up from the log when it reconnects', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const url = await server!.createDatabase();
    const a = await pgStore(url);
    const b = await pgStore(url);
    const heard: number[] = [];
    b.namespace('plugin:x').onRemoteChange<number>((_, v) => heard.push(v!));
    await b.follow();
    // Cut b's listening connection from the server side, then write while it is away.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN gw_changes'");
    } finally {
      await admin.end();
    }
    for (let i = 0; i < 30; i++) await a.namespace('plugin:x').put('n', i);
    await until('b caught up', () => heard.length === 30, 10000);
    assert.deepEqual(heard, Array.from({ length: 30 }, (_, i) => i));
  });

  test("a heartbeat is not starved by a busy pool: an instance whose every pool connection is taken stays up for the others, and its heartbeat's own connection is opened again when lost", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const url = await server!.createDatabase();
    const busy = await openPostgresStore({ url, collections: [], poolSize: 2 });
    const watcher = await pgStore(url, []);
    open.push(busy);
    const logger = createLogger({ level: 'silent' });
    const settings = { heartbeatSeconds: 1, downAfterSeconds: 3, logger };
    const busyOne = await registerInstance({ ...settings, pool: busy.pool, connection: busy.pool.options, id: busy.origin, name: 'busy' });
    const watching = await registerInstance({ ...settings, pool: watcher.pool, connection: watcher.pool.options, id: watcher.origin, name: 'watcher' });
    const seenDown: string[] = [];
    watching.onDown((id) => seenDown.push(id));
    try {
      await until('the watcher sees the busy instance up', () => watching.isUp(busy.origin), 5000);
      // Every connection of the busy instance's pool is held by other work for longer than downAfterSeconds.
      const held = await Promise.all([busy.pool.connect(), busy.pool.connect()]);
      try {
        await new Promise((resolve) => setTimeout(resolve, 5000));
      } finally {
        for (const client of held) client.release();
      }
      assert.deepEqual(seenDown, [], 'never taken for down while its pool was busy');
      // The heartbeat's connection is cut from the server side: the next heartbeat opens another.
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'amt-gateway heartbeat'");
        assert.equal(cut.rowCount, 2, 'one heartbeat connection per instance');
      } finally {
        await admin.end();
      }
      await new Promise((resolve) => setTimeout(resolve, 5000));
      assert.deepEqual(seenDown, [], 'the heartbeats went on after their connections were cut');
      assert.ok(watching.isUp(busy.origin));
    } finally {
      await busyOne.close();
      await watching.close();
    }
  });
});
