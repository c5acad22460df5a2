/** One write of an atomic batch. */
export type BatchOperation = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string };

/** Which entries `pages` reads: keys with `prefix` and within `[gte, lt)`, at most `limit`, `size` a page. */
export interface PageOptions {
  prefix?: string;
  gte?: string;
  lt?: string;
  limit?: number;
  reverse?: boolean;
  size?: number;
}

/**
 * A plugin's namespace of the store (LevelDB, or PostgreSQL for a cluster): string keys, JSON values, atomic batches and takes.
 * Keys sort lexicographically; use fixed-width or prefixed keys for ranges.
 */
export interface KeyValueStore {
  get<T>(key: string): Promise<T | undefined>;
  /** Reads several keys at once; missing keys give undefined at their position. */
  getMany<T>(keys: string[]): Promise<Array<T | undefined>>;
  put(key: string, value: unknown): Promise<void>;
  del(key: string): Promise<void>;
  /**
   * Removes the entry and gives its value, atomically: of takes of one key at the same time exactly one
   * gets the value, the others undefined (a one-time code, a ticket). Since kernel API 1.6.0. (LevelDB:
   * takes of a key queue in this process, which alone holds the database; PostgreSQL: the row is read
   * `FOR UPDATE` and deleted in one transaction, so it holds across every instance of a cluster.)
   */
  take<T>(key: string): Promise<T | undefined>;
  /** Applies every operation or none. */
  batch(operations: BatchOperation[]): Promise<void>;
  /** Iterates entries in key order, optionally restricted to keys starting with `prefix`. */
  entries<T>(options?: { prefix?: string; limit?: number; reverse?: boolean }): AsyncIterable<[string, T]>;
  /**
   * The same entries in pages of up to `size` (default 1,000, at most 10,000; LevelDB may cut one short): one await per page
   * instead of one per entry, for loading a whole namespace at start.
   */
  pages<T>(options?: PageOptions): AsyncIterable<Array<[string, T]>>;
  /**
   * Calls `listener` with each write that another gateway instance committed in this namespace
   * (exactly this one, not nested ones), in commit order: `value` undefined for a deletion. Only
   * the PostgreSQL driver has other instances; with LevelDB it never calls. Returns the unsubscribe.
   * What a plugin mirrors in memory follows the cluster through it.
   */
  onRemoteChange<T>(listener: (key: string, value: T | undefined) => void): () => void;
  /** A nested namespace inside this one. */
  namespace(name: string): KeyValueStore;
}
