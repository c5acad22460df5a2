/**
 * The JSON-lines copy keeps the trail's id order when LevelDB finishes the puts out of order (it
 * may: they complete on its own threads), and one record that cannot be stored does not stop the
 * lines after it. Real LevelDB and a real file; only the order the puts finish in is arranged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../core/store/level-store.js';
import { createLogger } from '../../../core/log/logger.js';
import type { KeyValueStore } from '../../../core/plugin-api.js';
import { openAuditLog } from '../../../plugins/audit/audit-log.js';
import { createAuditTrail } from '../../../plugins/audit/audit-trail.js';
import { openJsonLinesSink } from '../../../plugins/audit/jsonl-sink.js';

/** The store, with the put of each listed key held back (or refused) as told. */
function arrangedPuts(store: KeyValueStore, arrange: (key: string) => 'slow' | 'refuse' | 'as-is'): KeyValueStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name !== 'put') return Reflect.get(target, name, receiver) as unknown;
      return async (key: string, value: unknown) => {
        const how = arrange(key);
        if (how === 'refuse') throw new Error('disk full');
        if (how === 'slow') await new Promise((resolve) => setTimeout(resolve, 50));
        return target.put(key, value as never);
      };
    },
  });
}

async function withTrail(arrange: (key: string) => 'slow' | 'refuse' | 'as-is', run: (record: (n: number) => Promise<void>, errors: string[]) => Promise<void>): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-audit-order-'));
  const store = await openStore(join(dir, 'db'));
  try {
    const log = await openAuditLog(arrangedPuts(store.namespace('records'), arrange));
    const sink = await openJsonLinesSink(join(dir, 'trail.jsonl'));
    const errors: string[] = [];
    const logger = createLogger({ level: 'error', write: (line) => errors.push(line) });
    const trail = createAuditTrail(log, sink, logger, () => undefined);
    await run((n) => trail.record({ action: 'thing.do', by: { user: 'admin', address: '127.0.0.1' }, target: `t${n}` }), errors);
    await sink.close();
    const lines = (await readFile(join(dir, 'trail.jsonl'), 'utf8')).trim().split('\n');
    return lines.map((line) => (JSON.parse(line) as { id: string }).id);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

test('lines leave in id order when the first put finishes last', async () => {
  const ids = await withTrail(
    (key) => (key.endsWith('000000000001') ? 'slow' : 'as-is'),
    async (record) => {
      await Promise.all([1, 2, 3, 4].map(record));
    },
  );
  assert.deepEqual(ids, ['1', '2', '3', '4']);
});

test('a record that cannot be stored is logged and the lines after it are still written', async () => {
  let seenErrors: string[] = [];
  const ids = await withTrail(
    (key) => (key.endsWith('000000000002') ? 'refuse' : 'as-is'),
    async (record, errors) => {
      await Promise.all([1, 2, 3].map(record));
      seenErrors = errors;
    },
  );
  assert.deepEqual(ids, ['1', '3']);
  assert.equal(seenErrors.length, 1);
  assert.match(seenErrors[0]!, /audit record could not be written/);
});
