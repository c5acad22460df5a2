/** The store every driver opens (LevelDB by default, PostgreSQL for a cluster), as the kernel sees it. */
import type { KeyValueStore } from './key-value-store.js';

/**
 * Whether the store takes writes: `read-only` after a write failed, `damaged` after a read found
 * broken files, `unavailable` while the database cannot be reached. `reason` names no path nor
 * host (it is served without a token); the log has the details.
 */
export type StoreStatus = { state: 'ok' } | { state: 'read-only' | 'damaged' | 'unavailable'; reason: string };

/**
 * One raw entry: the whole key as LevelDB holds it (namespaces included, `!core!!users!alice`) and
 * the JSON text of its value. Both drivers read and write this form, so a backup is one format.
 */
export type RawEntry = [key: string, json: string];

/** A raw write: a put of JSON text or a deletion, by raw key. */
export type RawOperation = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

/** The gateway's store. */
export interface GatewayStore {
  /** `level` (LevelDB in `<dataDir>/db`) or `postgres`. */
  readonly driver: 'level' | 'postgres';
  /** The namespace a plugin (or the kernel, under `core`) owns. */
  namespace(name: string): KeyValueStore;
  /** Whether the store takes writes, and why not. */
  status(): StoreStatus;
  /**
   * Every entry of every namespace, in pages, from one snapshot taken when the iteration starts
   * (writes made meanwhile are not seen): for backups, re-sealing and moving a site to another driver.
   */
  rawPages(): AsyncIterable<RawEntry[]>;
  /**
   * Starts delivering other instances' writes to `onRemoteChange` listeners, from the moment the
   * store opened, once the plugins loaded what they mirror; resolves when caught up. LevelDB: nothing.
   */
  follow(): Promise<void>;
  /** Writes raw entries (and deletions) in one atomic batch, durable before it resolves. */
  rawBatch(operations: RawOperation[]): Promise<void>;
  close(): Promise<void>;
}
