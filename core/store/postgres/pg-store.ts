/**
 * The PostgreSQL driver of the store (`store.driver: "postgres"`), for several gateways on one
 * database. Each namespace a plugin declared as a collection is a table of its own; the others are
 * rows of `gw_kv`. Every write is one call of gw_apply (one statement, so all or nothing, committed
 * before it resolves) that also logs it for the other instances; `onRemoteChange` delivers theirs.
 * Loaded only when configured: a LevelDB site never imports `pg`.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../log/logger.js';
import type { BatchOperation, KeyValueStore, PageOptions } from '../key-value-store.js';
import type { GatewayStore, RawEntry, RawOperation, StoreStatus } from '../gateway-store.js';
import type { PlacedCollection } from '../collections.js';
import { keyRange, pageSize } from '../key-range.js';
import { migrate } from './pg-schema.js';
import { rawPrefix, splitRawKey } from './raw-keys.js';
import { createChangeFeed, type LoggedChange } from './change-feed.js';
import { isUnreachable, unavailableError, unreachableReason } from './pg-errors.js';

export interface PostgresStoreOptions {
  url: string;
  collections: PlacedCollection[];
  logger?: Logger;
  /** Connections this instance holds at most; default 10. */
  poolSize?: number;
  /** How long the change log keeps a change, in seconds; default 3,600. */
  changeRetentionSeconds?: number;
  /** Called when this instance missed changes the log no longer holds: its memory cannot be trusted. */
  onLost?: (message: string) => void;
}

/** The PostgreSQL store, with what the cluster builds on. */
export interface PostgresStore extends GatewayStore {
  readonly driver: 'postgres';
  /** This process's id in the change log and the instance table. */
  readonly origin: string;
  readonly pool: pg.Pool;
  /** Reads the change log now. */
  catchUp(): Promise<void>;
  /**
   * Receives NOTIFY payloads of `channel` (a name of letters, digits and _), from when the store
   * follows: for what needs no log (events of the moment). Call before `follow`.
   */
  listen(channel: string, handler: (payload: string) => void): void;
}

const STATEMENT_TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 5_000;
const PRUNE_EVERY_MS = 60_000;
/** Records per gw_apply call of a large batch. */
const LARGE_SLICE = 5000;

/** Where a namespace's rows live, and the SQL that reads them. */
interface Place {
  ns: string;
  table: string;
  /** `WHERE` conditions before the key's, and their parameters. */
  where: string;
  params: unknown[];
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const connection: pg.ClientConfig = {
    connectionString: options.url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    keepAlive: true,
    application_name: 'amt-gateway',
  };
  const origin = randomUUID();
  const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 10, idleTimeoutMillis: 30_000 });
  // An idle connection the server closed: the pool drops it; the next query opens another.
  pool.on('error', (err) => options.logger?.warn('store: a database connection closed', { error: unreachableReason(err) }));
  let status: StoreStatus = { state: 'ok' };

  /** Runs a statement, turning an unreachable database into 503 and noting it in the status. */
  const run = async <R extends pg.QueryResultRow>(text: string, params: unknown[] = []): Promise<pg.QueryResult<R>> => {
    try {
      const result = await pool.query<R>(text, params);
      if (status.state === 'unavailable') {
        status = { state: 'ok' };
        options.logger?.info('store: the database is reachable again');
      }
      return result;
    } catch (err) {
      if (!isUnreachable(err)) throw err;
      if (status.state !== 'unavailable') options.logger?.error('store: the database cannot be reached', { error: unreachableReason(err) });
      status = { state: 'unavailable', reason: "the store's database cannot be reached" };
      throw unavailableError(err);
    }
  };

  let tables = new Map<string, string>();
  const setup = await pool.connect().catch((err: unknown) => {
    throw new Error(`the store's PostgreSQL database cannot be reached: ${unreachableReason(err)}`, { cause: err });
  });
  let from: number;
  try {
    const report = await migrate(setup, options.collections);
    if (report.from !== report.to) options.logger?.info('store: database schema migrated', { from: report.from, to: report.to });
    if (report.collectionsChanged.length > 0) options.logger?.info('store: collection tables created or changed', { tables: report.collectionsChanged });
    const rows = await setup.query<{ table_name: string; namespace: string }>('SELECT table_name, namespace FROM gw_collections');
    tables = new Map(rows.rows.map((r) => [r.namespace, r.table_name]));
    // Read before anything is loaded: what the plugins load is at least this new, and the feed replays the rest.
    from = Number((await setup.query<{ seq: string }>('SELECT seq FROM gw_change_counter')).rows[0]!.seq);
  } catch (err) {
    setup.release();
    await pool.end().catch(() => undefined);
    throw err;
  }
  setup.release();

  const placeOf = (path: readonly string[]): Place => {
    const ns = rawPrefix(path);
    const table = tables.get(ns);
    return table ? { ns, table, where: '', params: [] } : { ns, table: 'gw_kv', where: 'ns = $1 AND ', params: [ns] };
  };
  const ident = (table: string) => `"${table.replaceAll('"', '""')}"`;

  const listeners = new Map<string, Set<(key: string, value: unknown) => void>>();
  const channels = new Map<string, (payload: string) => void>();
  const feed = createChangeFeed({
    connection,
    channels,
    origin,
    from,
    ...(options.logger ? { logger: options.logger } : {}),
    read: async (seq, limit) =>
      (
        await run<{ seq: string; ns: string; key: string; value: string | null; origin: string }>(
          'SELECT seq, ns, key, value::text AS value, origin FROM gw_changes WHERE seq > $1 ORDER BY seq LIMIT $2',
          [seq, limit],
        )
      ).rows.map((r) => ({ seq: Number(r.seq), ns: r.ns, key: r.key, value: r.value, origin: r.origin })),
    deliver(change: LoggedChange) {
      const set = listeners.get(change.ns);
      if (!set) return;
      const value = change.value === null ? undefined : (JSON.parse(change.value) as unknown);
      for (const listener of set) {
        try {
          listener(change.key, value);
        } catch (err) {
          options.logger?.error('store: a listener failed on a change from another instance', { ns: change.ns, error: (err as Error).message });
        }
      }
    },
    lost(expected, found) {
      const message = `this instance missed changes ${expected}..${found - 1}, which the change log no longer holds: what it keeps in memory may be stale; restart it`;
      options.logger?.error(`store: ${message}`);
      status = { state: 'damaged', reason: message };
      options.onLost?.(message);
    },
  });

  type Change = { place: Place; key: string; json: string | undefined };
  const applyText = (changes: Change[]) =>
    `[${changes.map(({ place, key, json }) => `{"t":${JSON.stringify(place.table)},"n":${JSON.stringify(place.ns)},"k":${JSON.stringify(key)},${json === undefined ? '"d":1' : `"v":${json}`}}`).join(',')}]`;
  const noteOwn = (changes: Change[], last: number) => changes.forEach((c, i) => feed.noteOwn(c.place.ns, c.key, last - changes.length + 1 + i));
  /** Writes changes through gw_apply: all or none, logged for the others, committed before it resolves. */
  const apply = async (changes: Change[]): Promise<void> => {
    if (changes.length === 0) return;
    const result = await run<{ seq: string }>('SELECT gw_apply($1::json, $2) AS seq', [applyText(changes), origin]);
    noteOwn(changes, Number(result.rows[0]!.seq));
  };
  /** Runs `work` in one transaction on one connection: committed before it resolves, rolled back when it throws. */
  const inTransaction = async <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect().catch((err: unknown) => {
      throw unavailableError(err);
    });
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw isUnreachable(err) ? unavailableError(err) : err;
    } finally {
      client.release();
    }
  };
  /** A large batch (a restore, a migration): slices of gw_apply in one transaction, each within the statement timeout. */
  const applyLarge = async (changes: Change[]): Promise<void> => {
    if (changes.length <= LARGE_SLICE) return apply(changes);
    const applied = await inTransaction(async (client) => {
      const done: Array<[Change[], number]> = [];
      for (let i = 0; i < changes.length; i += LARGE_SLICE) {
        const slice = changes.slice(i, i + LARGE_SLICE);
        const result = await client.query<{ seq: string }>('SELECT gw_apply($1::json, $2) AS seq', [applyText(slice), origin]);
        done.push([slice, Number(result.rows[0]!.seq)]);
      }
      return done;
    });
    for (const [slice, last] of applied) noteOwn(slice, last);
  };
  /**
   * Reads and deletes one entry in one transaction: the row is locked by the read, so of several
   * instances taking it at once the first deletes it and the others, once it commits, find nothing.
   */
  const takeOne = async <T>(place: Place, key: string): Promise<T | undefined> => {
    const taken = await inTransaction(async (client) => {
      const n = place.params.length;
      const found = await client.query<{ value: T }>(`SELECT value FROM ${ident(place.table)} WHERE ${place.where}key = $${n + 1} FOR UPDATE`, [...place.params, key]);
      if (found.rows.length === 0) return undefined;
      const change: Change = { place, key, json: undefined };
      const result = await client.query<{ seq: string }>('SELECT gw_apply($1::json, $2) AS seq', [applyText([change]), origin]);
      return { value: found.rows[0]!.value, change, seq: Number(result.rows[0]!.seq) };
    });
    if (!taken) return undefined;
    noteOwn([taken.change], taken.seq);
    return taken.value;
  };
  const encode = (value: unknown): string => {
    // As LevelDB does: a missing value is a deletion, not a record.
    if (value === null || value === undefined) throw new TypeError('Value cannot be null or undefined');
    return JSON.stringify(value);
  };

  const wrap = (path: string[]): KeyValueStore => {
    const place = placeOf(path);
    const table = ident(place.table);
    const n = place.params.length;
    const ns: KeyValueStore = {
      async get<T>(key: string) {
        const result = await run<{ value: T }>(`SELECT value FROM ${table} WHERE ${place.where}key = $${n + 1}`, [...place.params, key]);
        return result.rows[0]?.value;
      },
      async getMany<T>(keys: string[]) {
        if (keys.length === 0) return [];
        const result = await run<{ key: string; value: T }>(`SELECT key, value FROM ${table} WHERE ${place.where}key = ANY($${n + 1})`, [...place.params, keys]);
        const found = new Map(result.rows.map((r) => [r.key, r.value]));
        return keys.map((k) => found.get(k));
      },
      put: async (key, value) => apply([{ place, key, json: encode(value) }]),
      del: (key) => apply([{ place, key, json: undefined }]),
      take: <T>(key: string) => takeOne<T>(place, key),
      batch: async (operations: BatchOperation[]) => apply(operations.map((op) => ({ place, key: op.key, json: op.type === 'put' ? encode(op.value) : undefined }))),
      async *entries<T>(options: { prefix?: string; limit?: number; reverse?: boolean } = {}) {
        for await (const page of ns.pages<T>(options)) for (const entry of page) yield entry;
      },
      async *pages<T>(options: PageOptions = {}) {
        const range = keyRange(options);
        const size = pageSize(options.size);
        const reverse = options.reverse ?? false;
        let left = options.limit === undefined || options.limit < 0 ? Infinity : options.limit;
        let after: string | undefined;
        while (left > 0) {
          const params: unknown[] = [...place.params];
          const conditions: string[] = [];
          const bind = (value: unknown) => `$${params.push(value)}`;
          if (range.gte !== undefined) conditions.push(`key >= ${bind(range.gte)}`);
          if (range.lt !== undefined) conditions.push(`key < ${bind(range.lt)}`);
          if (after !== undefined) conditions.push(`key ${reverse ? '<' : '>'} ${bind(after)}`);
          const where = place.where + (conditions.length ? conditions.join(' AND ') : 'true');
          const take = Math.min(size, left);
          const result = await run<{ key: string; value: T }>(`SELECT key, value FROM ${table} WHERE ${where} ORDER BY key ${reverse ? 'DESC' : 'ASC'} LIMIT ${take}`, params);
          if (result.rows.length === 0) return;
          left -= result.rows.length;
          after = result.rows[result.rows.length - 1]!.key;
          yield result.rows.map((r) => [r.key, r.value] as [string, T]);
          if (result.rows.length < take) return;
        }
      },
      onRemoteChange<T>(listener: (key: string, value: T | undefined) => void) {
        let set = listeners.get(place.ns);
        if (!set) listeners.set(place.ns, (set = new Set()));
        const entry = listener as (key: string, value: unknown) => void;
        set.add(entry);
        return () => set.delete(entry);
      },
      namespace: (name) => wrap([...path, name]),
    };
    return ns;
  };

  const retention = options.changeRetentionSeconds ?? 3600;
  const prune = setInterval(() => void run('DELETE FROM gw_changes WHERE at < now() - make_interval(secs => $1)', [retention]).catch(() => undefined), PRUNE_EVERY_MS);
  prune.unref();

  return {
    driver: 'postgres',
    origin,
    pool,
    namespace: (name) => wrap([name]),
    status: () => status,
    follow: () => feed.start(),
    listen(channel, handler) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
      channels.set(channel, handler);
    },
    catchUp: () => feed.catchUp(),
    async *rawPages(): AsyncIterable<RawEntry[]> {
      // One snapshot for every table: a REPEATABLE READ transaction on one connection.
      const client = await pool.connect();
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const sources = [
          { sql: 'SELECT ns || key AS raw, value::text AS json FROM gw_kv WHERE (ns, key) > ($1, $2) ORDER BY ns, key LIMIT 1000', prefix: undefined },
          ...[...tables.entries()].map(([prefix, table]) => ({ sql: `SELECT $1 || key AS raw, value::text AS json FROM ${ident(table)} WHERE key > $2 ORDER BY key LIMIT 1000`, prefix })),
        ];
        for (const source of sources) {
          let after = { ns: '', key: '' };
          for (;;) {
            const page = await client.query<{ raw: string; json: string }>(source.sql, [source.prefix ?? after.ns, after.key]);
            if (page.rows.length === 0) break;
            after = splitRawKey(page.rows[page.rows.length - 1]!.raw);
            yield page.rows.map((r) => [r.raw, r.json] as RawEntry);
            if (page.rows.length < 1000) break;
          }
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw isUnreachable(err) ? unavailableError(err) : err;
      } finally {
        client.release();
      }
    },
    async rawBatch(operations: RawOperation[]) {
      const changes = operations.map((op) => {
        const { ns: prefix, key } = splitRawKey(op.key);
        return { place: { ns: prefix, table: tables.get(prefix) ?? 'gw_kv', where: '', params: [] }, key, json: op.type === 'put' ? op.value : undefined };
      });
      await applyLarge(changes);
    },
    async close() {
      clearInterval(prune);
      await feed.close();
      await pool.end();
    },
  };
}
