/**
 * Activation records in the plugin's store: one key per action, keyed by a fixed-width sequence
 * number (key order is start order), written when the action starts, when it waits and when it ends;
 * retention deletes from the oldest end. A row each, as a table would hold them.
 */
import type { KeyValueStore } from '../../../core/plugin-api.js';
import type { ActivationRecord } from '../schemas.js';

const KEY_PREFIX = 'r:';
const SEQ_WIDTH = 12;
const PAGE = 1000;

export interface RecordFilter {
  uuid?: string;
  outcome?: ActivationRecord['outcome'];
}

export interface RecordLog {
  /** A new record's id (its sequence number), in start order. */
  nextId(): string;
  /** Writes the record as it is now (a new one, or an update of one still kept). */
  save(record: ActivationRecord): Promise<void>;
  get(id: string): Promise<ActivationRecord | undefined>;
  /** Newest first: the matching records in `[offset, offset + limit)` and how many match. */
  query(filter: RecordFilter, offset: number, limit: number): Promise<{ total: number; records: ActivationRecord[] }>;
  /** Records kept now. */
  count(): number;
}

const keyOf = (id: string) => KEY_PREFIX + id;
const idOf = (seq: number) => String(seq).padStart(SEQ_WIDTH, '0');

async function edge(store: KeyValueStore, reverse: boolean): Promise<number | undefined> {
  for await (const [key] of store.entries({ prefix: KEY_PREFIX, limit: 1, reverse })) return Number(key.slice(KEY_PREFIX.length));
  return undefined;
}

export async function openRecordLog(store: KeyValueStore, maxRecords: number): Promise<RecordLog> {
  let first = (await edge(store, false)) ?? 1;
  let next = ((await edge(store, true)) ?? 0) + 1;
  let pruning: Promise<void> | null = null;

  const prune = async () => {
    while (next - first > maxRecords) {
      const until = Math.min(next - maxRecords, first + PAGE);
      const keys: string[] = [];
      for (let seq = first; seq < until; seq++) keys.push(keyOf(idOf(seq)));
      await store.batch(keys.map((key) => ({ type: 'del' as const, key })));
      first = until;
    }
  };

  return {
    nextId: () => idOf(next++),
    async save(record) {
      const seq = Number(record.id);
      if (seq < first) return;
      await store.put(keyOf(record.id), record);
      if (next - first > maxRecords && !pruning) pruning = prune().finally(() => (pruning = null));
    },
    get: (id) => (/^\d{12}$/.test(id) ? store.get<ActivationRecord>(keyOf(id)) : Promise.resolve(undefined)),
    async query(filter, offset, limit) {
      const records: ActivationRecord[] = [];
      let total = 0;
      const unfiltered = filter.uuid === undefined && filter.outcome === undefined;
      for await (const page of store.pages<ActivationRecord>({ prefix: KEY_PREFIX, reverse: true, size: PAGE })) {
        for (const [, record] of page) {
          if (!unfiltered && ((filter.uuid !== undefined && record.uuid !== filter.uuid) || (filter.outcome !== undefined && record.outcome !== filter.outcome))) continue;
          if (total >= offset && records.length < limit) records.push(record);
          total++;
        }
        // Without a filter the count is known: no need to read past the page wanted.
        if (unfiltered && records.length >= limit) return { total: next - first, records };
      }
      return { total, records };
    },
    count: () => next - first,
  };
}
