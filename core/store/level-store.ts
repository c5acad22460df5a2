import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import type { BatchOperation, KeyValueStore, PageOptions } from './key-value-store.js';
import type { GatewayStore, StoreStatus } from './gateway-store.js';
import type { Logger } from '../log/logger.js';
import { damagedReadError, isStoreFault, levelCode, levelMessage, readOnlyError, STORE_WAY_OUT, StoreDamagedError, StoreLockedError, withoutPaths } from './store-errors.js';
import { droppedAtOpen } from './recovery-check.js';
import { cutLogs } from './log-tail.js';
import { ENTRIES_PAGE, keyRange, pageSize } from './key-range.js';

export { StoreLockedError, StoreDamagedError } from './store-errors.js';
export type { GatewayStore, RawEntry, StoreStatus } from './gateway-store.js';

/** The part of abstract-level this module uses; one shape for the root and for sublevels. */
interface Db {
  get(key: string): Promise<unknown>;
  getMany(keys: string[]): Promise<unknown[]>;
  put(key: string, value: unknown): Promise<void>;
  del(key: string): Promise<void>;
  batch(operations: Array<{ type: 'put'; key: string; value: unknown } | { type: 'del'; key: string }>): Promise<void>;
  iterator(options: { gte?: string; lt?: string; limit: number; reverse: boolean }): {
    nextv(size: number): Promise<Array<[string, unknown]>>;
    close(): Promise<void>;
  };
  sublevel(name: string, options: { valueEncoding: 'json' }): Db;
}

/** Sees every operation's outcome: refuses writes once read-only, turns faults into clear errors. */
interface Guard {
  write<T>(operation: () => Promise<T>): Promise<T>;
  read<T>(operation: () => Promise<T>): Promise<T>;
}

/**
 * Runs each piece of work after every earlier one of the same key, one at a time: what makes `take`
 * atomic, since LevelDB has no read-and-delete and this process alone holds the database (its lock).
 */
function keyQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return async function exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    const run = (tails.get(key) ?? Promise.resolve()).then(work);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      // Bounded by the work under way: a key leaves the map when its last piece of work ends.
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

/** `path` names the namespace among all (a key of the queue); one `exclusive` for the whole store. */
function wrap(db: Db, guard: Guard, path: string, exclusive: ReturnType<typeof keyQueue>): KeyValueStore {
  const ns: KeyValueStore = {
    async get<T>(key: string) {
      return (await guard.read(() => db.get(key))) as T | undefined;
    },
    async getMany<T>(keys: string[]) {
      return (await guard.read(() => db.getMany(keys))) as Array<T | undefined>;
    },
    async put(key, value) {
      await guard.write(() => db.put(key, value));
    },
    async del(key) {
      await guard.write(() => db.del(key));
    },
    take<T>(key: string) {
      return exclusive(`${path}:${JSON.stringify(key)}`, async () => {
        const value = (await guard.read(() => db.get(key))) as T | undefined;
        if (value !== undefined) await guard.write(() => db.del(key));
        return value;
      });
    },
    async batch(operations: BatchOperation[]) {
      if (operations.length === 0) return;
      await guard.write(() => db.batch(operations.map((op) => (op.type === 'put' ? { type: 'put', key: op.key, value: op.value } : { type: 'del', key: op.key }))));
    },
    async *entries<T>(options: { prefix?: string; limit?: number; reverse?: boolean } = {}) {
      // In pages: one await per entry of the iterator on top of this generator's own costs a quarter
      // of loading 100,000 devices at start.
      for await (const page of ns.pages<T>(options)) for (const entry of page) yield entry;
    },
    async *pages<T>(options: PageOptions = {}) {
      const range = keyRange(options);
      const iterator = db.iterator({ ...range, limit: options.limit ?? -1, reverse: options.reverse ?? false });
      const size = pageSize(options.size);
      // The next page is read (on LevelDB's thread) while the caller works through this one.
      let next: Promise<Array<[string, unknown]>> | undefined = guard.read(() => iterator.nextv(size));
      try {
        for (;;) {
          const page: Array<[string, unknown]> = await next;
          next = undefined;
          if (page.length === 0) return;
          next = guard.read(() => iterator.nextv(size));
          yield page as Array<[string, T]>;
        }
      } finally {
        if (next) await next.catch(() => undefined);
        await iterator.close();
      }
    },
    onRemoteChange: () => () => undefined,
    namespace(name) {
      return wrap(db.sublevel(name, { valueEncoding: 'json' }), guard, `${path}/${JSON.stringify(name)}`, exclusive);
    },
  };
  return ns;
}

export interface OpenStoreOptions {
  /** Open even when LevelDB would drop unreadable log records (logged loudly); default: refuse. */
  acceptDamage?: boolean;
  logger?: Logger;
}

/** The data directory's `db` folder. */
export const storeLocation = (dataDir: string): string => join(dataDir, 'db');

/** A LevelDB folder holds files (a store) or nothing yet (a first start). */
export function hasStoreFiles(location: string): boolean {
  try {
    return readdirSync(location).some((f) => f !== 'LOCK' && !f.startsWith('LOG'));
  } catch {
    return false;
  }
}

/** The start-up error for a store LevelDB refuses to open, naming the file it names or the likely one. */
function openFailure(err: unknown, location: string): Error {
  const code = levelCode(err);
  if (code === 'LEVEL_LOCKED') return new StoreLockedError(join(location, '..'));
  const said = levelMessage(err);
  let file = /(\/\S+\.(?:ldb|sst|log))\b/.exec(said)?.[1];
  if (!file && /CURRENT/.test(said)) file = join(location, 'CURRENT');
  if (!file && code === 'LEVEL_CORRUPTION') {
    const current = (() => {
      try {
        return readFileSync(join(location, 'CURRENT'), 'utf8').trim();
      } catch {
        return 'MANIFEST';
      }
    })();
    file = join(location, current);
  }
  if (!file && /does not exist/.test(said)) file = join(location, 'CURRENT');
  return new StoreDamagedError(`the store in ${location} cannot be opened: ${file ? `${file} is damaged or missing` : 'its files are damaged'} (LevelDB: ${said}). ${STORE_WAY_OUT}`, { cause: err });
}

/**
 * Opens (or, in an empty folder, creates) the store. Refuses a store whose files LevelDB cannot
 * open, one missing its CURRENT file (LevelDB would silently start a new, empty one beside the
 * old tables), and one whose log holds records LevelDB would drop (unless `acceptDamage`).
 */
export async function openStore(dataDir: string, options: OpenStoreOptions = {}): Promise<GatewayStore> {
  const location = storeLocation(dataDir);
  mkdirSync(location, { recursive: true, mode: 0o700 });
  const existing = hasStoreFiles(location);
  const dropped = existing ? await droppedAtOpen(location) : [];
  if (dropped.length > 0) {
    const what = `LevelDB cannot read part of the store's write-ahead log and would drop it: ${dropped.join('; ')}`;
    if (!options.acceptDamage) {
      throw new StoreDamagedError(`the store in ${location} is damaged: ${what}. Nothing was changed. ${STORE_WAY_OUT}; or start once with --accept-store-damage to continue with the records LevelDB can read`);
    }
    options.logger?.error('STORE DAMAGED: starting anyway (--accept-store-damage); the dropped records are lost', { store: location, dropped });
  }
  // LevelDB drops a log's unfinished last write without a word: say it, since it may not be the only loss.
  for (const cut of existing ? cutLogs(location) : []) {
    options.logger?.error(
      'STORE RECOVERY: the write-ahead log ends in the middle of a write (a crash or power loss during it, or a copy cut short); LevelDB drops that write and keeps the whole ones before it. If the log was cut short, every write after the cut is lost too: compare with the last backup',
      { store: location, ...cut },
    );
  }
  const db = new Level<string, unknown>(location, { valueEncoding: 'json', createIfMissing: !existing });
  try {
    await db.open();
  } catch (err) {
    throw openFailure(err, location);
  }
  let status: StoreStatus = { state: 'ok' };
  const guard: Guard = {
    async write(operation) {
      if (status.state === 'read-only') throw readOnlyError(status.reason);
      try {
        return await operation();
      } catch (err) {
        if (!isStoreFault(err)) throw err;
        // Several writes may have been in flight when the first failed: one log line, one reason.
        const now = status as StoreStatus;
        if (now.state === 'read-only') throw readOnlyError(now.reason);
        status = { state: 'read-only', reason: withoutPaths(levelMessage(err)) };
        options.logger?.error('store write failed: the store is read-only until restart', { store: location, error: levelMessage(err) });
        throw readOnlyError(status.reason);
      }
    },
    async read(operation) {
      try {
        return await operation();
      } catch (err) {
        const undecodable = levelCode(err) === 'LEVEL_DECODE_ERROR';
        if (!isStoreFault(err) && !undecodable) throw err;
        // A decoder's message may quote the stored bytes: say what happened, not what they were.
        const reason = undecodable ? 'Corruption: a stored value is not the JSON that was written' : levelMessage(err);
        if (status.state === 'ok') {
          status = { state: 'damaged', reason: withoutPaths(reason) };
          options.logger?.error('store read failed: its files are damaged', { store: location, error: reason });
        }
        throw damagedReadError(withoutPaths(reason));
      }
    },
  };
  const root = wrap(db as unknown as Db, guard, '', keyQueue());
  return {
    driver: 'level',
    namespace: (name) => root.namespace(name),
    status: () => status,
    follow: async () => undefined,
    async *rawPages() {
      const iterator = db.iterator<string, string>({ keyEncoding: 'utf8', valueEncoding: 'utf8' });
      try {
        for (;;) {
          const page = await guard.read(() => iterator.nextv(ENTRIES_PAGE));
          if (page.length === 0) return;
          yield page;
        }
      } finally {
        await iterator.close();
      }
    },
    async rawBatch(operations) {
      await guard.write(() => db.batch(operations, { keyEncoding: 'utf8', valueEncoding: 'utf8', sync: true }));
    },
    close: () => db.close(),
  };
}
