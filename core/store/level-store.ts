import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import type { BatchOperation, KeyValueStore, PageOptions } from './key-value-store.js';

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

/** The data directory is held by another process. */
export class StoreLockedError extends Error {
  readonly code = 'GW_ERR_STORE_LOCKED';
  constructor(dir: string) {
    super(`data directory ${dir} is already in use by another amt-gateway process`);
    this.name = 'StoreLockedError';
  }
}

const ENTRIES_PAGE = 1000;
/** Bounds what one page holds in memory at once. */
const MAX_PAGE = 10_000;

/** The LevelDB bounds of a prefix and/or a `[gte, lt)` range: both apply. */
function keyRange({ prefix, gte, lt }: PageOptions): { gte?: string; lt?: string } {
  const range: { gte?: string; lt?: string } = {};
  const lower = [prefix, gte].filter((k) => k !== undefined).sort().pop();
  const upper = [prefix === undefined ? undefined : prefix + '\uffff', lt].filter((k) => k !== undefined).sort()[0];
  if (lower !== undefined) range.gte = lower;
  if (upper !== undefined) range.lt = upper;
  return range;
}

function wrap(db: Db): KeyValueStore {
  const ns: KeyValueStore = {
    async get<T>(key: string) {
      return (await db.get(key)) as T | undefined;
    },
    async getMany<T>(keys: string[]) {
      return (await db.getMany(keys)) as Array<T | undefined>;
    },
    async put(key, value) {
      await db.put(key, value);
    },
    async del(key) {
      await db.del(key);
    },
    async batch(operations: BatchOperation[]) {
      if (operations.length === 0) return;
      await db.batch(operations.map((op) => (op.type === 'put' ? { type: 'put', key: op.key, value: op.value } : { type: 'del', key: op.key })));
    },
    async *entries<T>(options: { prefix?: string; limit?: number; reverse?: boolean } = {}) {
      // In pages: one await per entry of the iterator on top of this generator's own costs a quarter
      // of loading 100,000 devices at start.
      for await (const page of ns.pages<T>(options)) for (const entry of page) yield entry;
    },
    async *pages<T>(options: PageOptions = {}) {
      const range = keyRange(options);
      const iterator = db.iterator({ ...range, limit: options.limit ?? -1, reverse: options.reverse ?? false });
      const size = Math.min(Math.max(1, options.size ?? ENTRIES_PAGE), MAX_PAGE);
      // The next page is read (on LevelDB's thread) while the caller works through this one.
      let next: Promise<Array<[string, unknown]>> | undefined = iterator.nextv(size);
      try {
        for (;;) {
          const page: Array<[string, unknown]> = await next;
          next = undefined;
          if (page.length === 0) return;
          next = iterator.nextv(size);
          yield page as Array<[string, T]>;
        }
      } finally {
        if (next) await next.catch(() => undefined);
        await iterator.close();
      }
    },
    namespace(name) {
      return wrap(db.sublevel(name, { valueEncoding: 'json' }));
    },
  };
  return ns;
}

/** The gateway's LevelDB database under `<dataDir>/db`. */
export interface GatewayStore {
  /** The namespace a plugin (or the kernel, under `core`) owns. */
  namespace(name: string): KeyValueStore;
  close(): Promise<void>;
}

export async function openStore(dataDir: string): Promise<GatewayStore> {
  const location = join(dataDir, 'db');
  mkdirSync(location, { recursive: true, mode: 0o700 });
  const db = new Level<string, unknown>(location, { valueEncoding: 'json' });
  try {
    await db.open();
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') throw new StoreLockedError(dataDir);
    throw err;
  }
  const root = wrap(db as unknown as Db);
  return {
    namespace: (name) => root.namespace(name),
    close: () => db.close(),
  };
}
