/**
 * The audit records in the plugin's LevelDB namespace: one key per record, keyed by a sequence
 * number (fixed width, so key order is write order), appended and never changed; only retention
 * deletes, from the oldest end.
 */
import type { KeyValueStore } from '../../core/plugin-api.js';
import type { AuditRecord } from './api.js';

const KEY_PREFIX = 'r:';
const SEQ_WIDTH = 12;
const PAGE = 1000;

export interface AuditFilter {
  user?: string;
  /** Exact, or a prefix when it ends in `*` (`power.*`). */
  action?: string;
  target?: string;
  outcome?: string;
  /** ISO times, inclusive. */
  from?: string;
  to?: string;
}

export interface AuditLog {
  /** Stores a record under the next id; resolves once LevelDB has it. */
  append(record: Omit<AuditRecord, 'id'>): Promise<AuditRecord>;
  /** Newest first: the matching records in `[offset, offset + limit)` and how many match. */
  query(filter: AuditFilter, offset: number, limit: number): Promise<{ total: number; records: AuditRecord[] }>;
  /** Deletes records beyond `maxRecords` and older than `olderThan` (ISO), oldest first; returns how many. */
  prune(maxRecords: number, olderThan: string | null): Promise<number>;
  /** Records kept now. */
  count(): number;
}

const keyOf = (seq: number) => KEY_PREFIX + String(seq).padStart(SEQ_WIDTH, '0');
const seqOf = (key: string) => Number(key.slice(KEY_PREFIX.length));

function matcher(filter: AuditFilter): (record: AuditRecord) => boolean {
  const action = filter.action;
  const actionPrefix = action?.endsWith('*') ? action.slice(0, -1) : undefined;
  return (r) =>
    (filter.user === undefined || r.user === filter.user) &&
    (action === undefined || (actionPrefix !== undefined ? r.action.startsWith(actionPrefix) : r.action === action)) &&
    (filter.target === undefined || r.target === filter.target) &&
    (filter.outcome === undefined || r.outcome === filter.outcome) &&
    (filter.from === undefined || r.at >= filter.from) &&
    (filter.to === undefined || r.at <= filter.to);
}

async function edgeSeq(store: KeyValueStore, reverse: boolean): Promise<number | undefined> {
  for await (const [key] of store.entries({ prefix: KEY_PREFIX, limit: 1, reverse })) return seqOf(key);
  return undefined;
}

/**
 * @param allocate in a cluster, hands out each record's number once across the instances (at least
 *   the given one); alone, numbers count up in memory.
 */
export async function openAuditLog(store: KeyValueStore, allocate?: (atLeast: number) => Promise<number>): Promise<AuditLog> {
  const last = await edgeSeq(store, true);
  // Deletions only ever take the oldest records, so the kept ones are the contiguous run [first, next).
  let first = (await edgeSeq(store, false)) ?? 1;
  let next = (last ?? 0) + 1;

  const deleteBefore = async (seq: number) => {
    const doomed: string[] = [];
    for await (const page of store.pages<unknown>({ prefix: KEY_PREFIX, lt: keyOf(seq), size: PAGE })) {
      doomed.push(...page.map(([key]) => key));
      if (doomed.length >= PAGE) await store.batch(doomed.splice(0).map((key) => ({ type: 'del' as const, key })));
    }
    if (doomed.length > 0) await store.batch(doomed.map((key) => ({ type: 'del' as const, key })));
  };

  // Records appended or pruned by another instance of a cluster: the count follows.
  store.onRemoteChange<AuditRecord>((key, record) => {
    if (!key.startsWith(KEY_PREFIX)) return;
    if (record) next = Math.max(next, seqOf(key) + 1);
    else first = Math.max(first, seqOf(key) + 1);
  });

  /** The first sequence number of a record at or after `time` (records are in time order but for clock steps). */
  const firstAtOrAfter = async (time: string): Promise<number> => {
    for await (const page of store.pages<AuditRecord>({ prefix: KEY_PREFIX, size: PAGE })) {
      for (const [key, record] of page) if (record.at >= time) return seqOf(key);
    }
    return next;
  };

  return {
    async append(record) {
      const seq = allocate ? await allocate(next) : next;
      next = Math.max(next, seq + 1);
      const stored: AuditRecord = { id: String(seq), ...record };
      await store.put(keyOf(seq), stored);
      return stored;
    },
    async query(filter, offset, limit) {
      // Unfiltered (the console's first view), the count is known and only the page need be read.
      if (Object.values(filter).every((v) => v === undefined)) {
        const records: AuditRecord[] = [];
        for await (const page of store.pages<AuditRecord>({ prefix: KEY_PREFIX, reverse: true, limit: offset + limit, size: Math.min(PAGE, offset + limit) })) {
          records.push(...page.map(([, record]) => record));
        }
        return { total: next - first, records: records.slice(offset) };
      }
      const matches = matcher(filter);
      const records: AuditRecord[] = [];
      let total = 0;
      for await (const page of store.pages<AuditRecord>({ prefix: KEY_PREFIX, reverse: true, size: PAGE })) {
        for (const [, record] of page) {
          if (!matches(record)) continue;
          if (total >= offset && records.length < limit) records.push(record);
          total++;
        }
      }
      return { total, records };
    },
    async prune(maxRecords, olderThan) {
      let cut = Math.max(first, next - maxRecords);
      if (olderThan !== null) cut = Math.max(cut, await firstAtOrAfter(olderThan));
      if (cut <= first) return 0;
      await deleteBefore(cut);
      const removed = cut - first;
      first = cut;
      return removed;
    },
    count: () => next - first,
  };
}
