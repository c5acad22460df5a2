/**
 * The audit records in the plugin's LevelDB namespace, in two retention classes, each keyed by a
 * sequence number of its own (fixed width, so key order is write order): `operator` records (key
 * `r:`, id the number), appended and never changed, and `sign-in-failures` (key `f:`, id `f` and the
 * number), the aggregated failed and refused sign-ins anyone can cause, each updated while its window
 * is open. Retention deletes from the oldest end of one class at a time, so one class never makes
 * room for the other. Lists merge the classes newest first by time.
 */
import type { KeyValueStore } from '../../core/plugin-api.js';
import type { AuditClass, AuditRecord } from './api.js';

const PREFIX: Record<AuditClass, string> = { operator: 'r:', 'sign-in-failures': 'f:' };
const ID_PREFIX: Record<AuditClass, string> = { operator: '', 'sign-in-failures': 'f' };
const CLASSES = Object.keys(PREFIX) as AuditClass[];
const SEQ_WIDTH = 12;
const PAGE = 1000;

export interface AuditFilter {
  /** The user; a sign-in failures record matches any name it holds (`detail.names`). */
  user?: string;
  /** Exact, or a prefix when it ends in `*` (`power.*`). */
  action?: string;
  target?: string;
  outcome?: string;
  /** ISO times, inclusive. */
  from?: string;
  to?: string;
  class?: AuditClass;
}

export interface AuditLog {
  /** Stores a record under the next id; resolves once LevelDB has it. */
  append(record: Omit<AuditRecord, 'id'>): Promise<AuditRecord>;
  /** Rewrites records of the `sign-in-failures` class (their counts grew); those retention took meanwhile stay gone. */
  update(records: AuditRecord[]): Promise<void>;
  /** Newest first: the matching records in `[offset, offset + limit)` and how many match. */
  query(filter: AuditFilter, offset: number, limit: number): Promise<{ total: number; records: AuditRecord[] }>;
  /** Deletes the class's records beyond `maxRecords` and older than `olderThan` (ISO), oldest first; returns how many. */
  prune(recordClass: AuditClass, maxRecords: number, olderThan: string | null): Promise<number>;
  /** Records of the class kept now. */
  count(recordClass: AuditClass): number;
}

const keyOf = (recordClass: AuditClass, seq: number) => PREFIX[recordClass] + String(seq).padStart(SEQ_WIDTH, '0');
const seqOf = (key: string) => Number(key.slice(2));
const seqOfId = (record: AuditRecord) => Number(record.id.slice(ID_PREFIX[record.class].length));

function matcher(filter: AuditFilter): (record: AuditRecord) => boolean {
  const action = filter.action;
  const actionPrefix = action?.endsWith('*') ? action.slice(0, -1) : undefined;
  const user = filter.user;
  return (r) =>
    (user === undefined || r.user === user || (Array.isArray(r.detail.names) && r.detail.names.includes(user))) &&
    (action === undefined || (actionPrefix !== undefined ? r.action.startsWith(actionPrefix) : r.action === action)) &&
    (filter.target === undefined || r.target === filter.target) &&
    (filter.outcome === undefined || r.outcome === filter.outcome) &&
    (filter.from === undefined || r.at >= filter.from) &&
    (filter.to === undefined || r.at <= filter.to);
}

async function edgeSeq(store: KeyValueStore, prefix: string, reverse: boolean): Promise<number | undefined> {
  for await (const [key] of store.entries({ prefix, limit: 1, reverse })) return seqOf(key);
  return undefined;
}

/** Records stored before classes existed carry none: they are operator records. */
const withClass = (record: AuditRecord, recordClass: AuditClass): AuditRecord => (record.class ? record : { ...record, class: recordClass });

/** The records of several classes newest first, merged by time from one reverse iterator per class. */
async function* newestFirst(store: KeyValueStore, classes: AuditClass[], limit?: number): AsyncGenerator<AuditRecord> {
  const cursors = classes.map((recordClass) => {
    const pages = store.pages<AuditRecord>({ prefix: PREFIX[recordClass], reverse: true, size: Math.min(PAGE, limit ?? PAGE), ...(limit === undefined ? {} : { limit }) })[Symbol.asyncIterator]();
    return { recordClass, pages, page: [] as Array<[string, AuditRecord]>, done: false };
  });
  const fill = async (cursor: (typeof cursors)[number]) => {
    while (cursor.page.length === 0 && !cursor.done) {
      const next = await cursor.pages.next();
      if (next.done) cursor.done = true;
      else cursor.page = next.value;
    }
  };
  try {
    for (;;) {
      await Promise.all(cursors.map(fill));
      const live = cursors.filter((c) => c.page.length > 0);
      if (live.length === 0) return;
      const newest = live.reduce((a, b) => (a.page[0]![1].at >= b.page[0]![1].at ? a : b));
      yield withClass(newest.page.shift()![1], newest.recordClass);
    }
  } finally {
    await Promise.all(cursors.map((c) => c.pages.return?.()));
  }
}

export async function openAuditLog(store: KeyValueStore): Promise<AuditLog> {
  // Deletions only ever take a class's oldest records, so each class keeps the contiguous run [first, next) of its sequence.
  const first = {} as Record<AuditClass, number>;
  const next = {} as Record<AuditClass, number>;
  for (const recordClass of CLASSES) {
    first[recordClass] = (await edgeSeq(store, PREFIX[recordClass], false)) ?? 1;
    next[recordClass] = ((await edgeSeq(store, PREFIX[recordClass], true)) ?? 0) + 1;
  }
  const count = (recordClass: AuditClass) => next[recordClass] - first[recordClass];

  const deleteBefore = async (recordClass: AuditClass, seq: number): Promise<void> => {
    const doomed: string[] = [];
    for await (const page of store.pages<unknown>({ prefix: PREFIX[recordClass], lt: keyOf(recordClass, seq), size: PAGE })) {
      doomed.push(...page.map(([key]) => key));
      if (doomed.length >= PAGE) await store.batch(doomed.splice(0).map((key) => ({ type: 'del' as const, key })));
    }
    if (doomed.length > 0) await store.batch(doomed.map((key) => ({ type: 'del' as const, key })));
  };

  /** The first sequence number of a record at or after `time` (records are in time order but for clock steps). */
  const firstAtOrAfter = async (recordClass: AuditClass, time: string): Promise<number> => {
    for await (const page of store.pages<AuditRecord>({ prefix: PREFIX[recordClass], size: PAGE })) {
      for (const [key, record] of page) if (record.at >= time) return seqOf(key);
    }
    return next[recordClass];
  };

  return {
    async append(record) {
      const seq = next[record.class]++;
      const stored: AuditRecord = { id: ID_PREFIX[record.class] + String(seq), ...record };
      await store.put(keyOf(record.class, seq), stored);
      return stored;
    },
    async update(records) {
      const live = records.filter((r) => seqOfId(r) >= first[r.class]);
      await store.batch(live.map((r) => ({ type: 'put' as const, key: keyOf(r.class, seqOfId(r)), value: r })));
    },
    async query(filter, offset, limit) {
      const classes = filter.class ? [filter.class] : CLASSES;
      const { class: _class, ...rest } = filter;
      // Unfiltered (the console's first view), the count is known and only the page need be read.
      if (Object.values(rest).every((v) => v === undefined)) {
        const records: AuditRecord[] = [];
        for await (const record of newestFirst(store, classes, offset + limit)) {
          if (records.length >= offset + limit) break;
          records.push(record);
        }
        return { total: classes.reduce((sum, c) => sum + count(c), 0), records: records.slice(offset) };
      }
      const matches = matcher(rest);
      const records: AuditRecord[] = [];
      let total = 0;
      for await (const record of newestFirst(store, classes)) {
        if (!matches(record)) continue;
        if (total >= offset && records.length < limit) records.push(record);
        total++;
      }
      return { total, records };
    },
    async prune(recordClass, maxRecords, olderThan) {
      let cut = Math.max(first[recordClass], next[recordClass] - maxRecords);
      if (olderThan !== null) cut = Math.max(cut, await firstAtOrAfter(recordClass, olderThan));
      if (cut <= first[recordClass]) return 0;
      await deleteBefore(recordClass, cut);
      const removed = cut - first[recordClass];
      first[recordClass] = cut;
      return removed;
    },
    count,
  };
}
