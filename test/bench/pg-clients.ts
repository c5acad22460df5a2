/**
 * Which PostgreSQL client the store uses, measured on the store's own queries (run by hand:
 * `npx tsx test/bench/pg-clients.ts`): `pg` (node-postgres) and `postgres` (postgres.js) against one
 * real server, each with a pool of 4 connections and 32 callers at once. Queries: a row by key, a
 * page of 100 devices by the address index, and a write transaction as the store makes it (counter
 * row, upsert, change-log row, NOTIFY).
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import postgres from 'postgres';
import { findPostgresBin, startPostgres } from '../helpers/postgres-server.js';

const DEVICES = 20_000;
const CALLERS = 32;
const SECONDS = 3;

const SCHEMA = `
CREATE TABLE devices (key text PRIMARY KEY, value jsonb NOT NULL, ip_key bigint GENERATED ALWAYS AS ((value->>'ipKey')::bigint) STORED);
CREATE INDEX devices_ip ON devices (ip_key, key);
CREATE TABLE changes (seq bigint PRIMARY KEY, ns text NOT NULL, key text NOT NULL, value jsonb);
CREATE TABLE change_counter (one boolean PRIMARY KEY, seq bigint NOT NULL); INSERT INTO change_counter VALUES (true, 0);`;

type Query = (sql: string, params: unknown[]) => Promise<unknown[]>;
type Tx = (work: (q: Query) => Promise<void>) => Promise<void>;

async function rate(name: string, op: (i: number) => Promise<unknown>): Promise<number> {
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, c) => {
      let i = c;
      while (performance.now() < until) {
        await op(i);
        i += CALLERS;
        done++;
      }
    }),
  );
  const perSecond = done / SECONDS;
  console.log(`  ${name.padEnd(34)} ${perSecond.toFixed(0).padStart(7)} /s`);
  return perSecond;
}

async function suite(label: string, query: Query, tx: Tx, keys: string[]): Promise<Record<string, number>> {
  console.log(label);
  const out: Record<string, number> = {};
  out.get = await rate('row by key', (i) => query('SELECT value FROM devices WHERE key = $1', [keys[i % keys.length]]));
  out.page = await rate('page of 100 by address', (i) => query('SELECT value FROM devices ORDER BY ip_key, key LIMIT 100 OFFSET $1', [(i * 100) % 5000]));
  out.write = await rate('write transaction (upsert + log)', (i) =>
    tx(async (q) => {
      const key = keys[i % keys.length]!;
      const value = JSON.stringify({ id: key, ipKey: i, hostname: `h${i}` });
      const [row] = (await q('UPDATE change_counter SET seq = seq + 1 RETURNING seq', [])) as Array<{ seq: string }>;
      await q('INSERT INTO devices (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [key, value]);
      await q('INSERT INTO changes (seq, ns, key, value) VALUES ($1, $2, $3, $4)', [row!.seq, 'devices', key, value]);
      await q("SELECT pg_notify('changes', $1)", [String(row!.seq)]);
    }),
  );
  return out;
}

async function main(): Promise<void> {
  if (!findPostgresBin()) throw new Error('no PostgreSQL installed');
  const server = await startPostgres();
  try {
    const url = await server.createDatabase('clients');
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    await setup.query(SCHEMA);
    const keys = Array.from({ length: DEVICES }, () => randomUUID());
    for (let i = 0; i < DEVICES; i += 1000) {
      const slice = keys.slice(i, i + 1000);
      await setup.query(
        'INSERT INTO devices (key, value) SELECT k, jsonb_build_object($2::text, k, $3::text, n) FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n)',
        [slice, 'id', 'ipKey'],
      );
    }
    await setup.query('ANALYZE');
    await setup.end();

    const pool = new pg.Pool({ connectionString: url, max: 4 });
    const pgQuery: Query = async (sql, params) => (await pool.query(sql, params)).rows;
    const pgTx: Tx = async (work) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await work(async (sql, params) => (await client.query(sql, params)).rows);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    };
    const a = await suite('pg (node-postgres) 8.x', pgQuery, pgTx, keys);
    await pool.end();

    const sql = postgres(url, { max: 4, onnotice: () => undefined });
    const jsQuery: Query = async (text, params) => [...(await sql.unsafe(text, params as never[], { prepare: true }))];
    const jsTx: Tx = async (work) => {
      await sql.begin(async (t) => {
        await work(async (text, params) => [...(await t.unsafe(text, params as never[], { prepare: true }))]);
      });
    };
    const b = await suite('postgres (postgres.js) 3.x', jsQuery, jsTx, keys);
    await sql.end();
    for (const k of Object.keys(a)) console.log(`${k}: postgres.js / pg = ${(b[k]! / a[k]!).toFixed(2)}`);
  } finally {
    await server.destroy();
  }
}

await main();
