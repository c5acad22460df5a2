/**
 * The audit log on a real LevelDB: ids in write order across a reopen, retention by age (the
 * records older than the cut go, the rest stay) and by count (the oldest go), never a record kept
 * twice or a gap in what remains.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../core/store/level-store.js';
import { openAuditLog } from '../../../plugins/audit/audit-log.js';

const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();
const fields = (day: number, action = 'thing.do', recordClass: 'operator' | 'sign-in-failures' = 'operator') => ({ class: recordClass, at: at(day), user: 'u', address: '127.0.0.1', action, target: null, outcome: 'success' as const, detail: {} });

test('ids keep increasing across a reopen; pruning by age and by count takes the oldest only', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-audit-log-'));
  try {
    let store = await openStore(dir);
    let log = await openAuditLog(store.namespace('records'));
    for (let day = 1; day <= 10; day++) await log.append(fields(day));
    await store.close();

    store = await openStore(dir);
    log = await openAuditLog(store.namespace('records'));
    assert.equal(log.count('operator'), 10);
    assert.equal((await log.append(fields(11))).id, '11');

    assert.equal(await log.prune('operator', 1000, at(4)), 3, 'days 1 to 3 are older than the cut');
    let kept = await log.query({}, 0, 100);
    assert.deepEqual(kept.records.map((r) => r.id), ['11', '10', '9', '8', '7', '6', '5', '4']);
    assert.equal(kept.total, 8);

    assert.equal(await log.prune('operator', 5, null), 3);
    kept = await log.query({}, 0, 100);
    assert.deepEqual(kept.records.map((r) => r.id), ['11', '10', '9', '8', '7']);
    assert.equal(log.count('operator'), 5);
    assert.equal(await log.prune('operator', 5, at(1)), 0, 'nothing left to take');

    const filtered = await log.query({ from: at(8), to: at(10) }, 1, 1);
    assert.deepEqual([filtered.total, filtered.records.map((r) => r.id)], [3, ['9']]);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('two classes: each pruned within its own bound, never to make room for the other; lists merge them newest first', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-audit-log-'));
  try {
    const store = await openStore(dir);
    let log = await openAuditLog(store.namespace('records'));
    await log.append(fields(1, 'credential.create'));
    for (let day = 2; day <= 30; day++) await log.append(fields(day, 'auth.sign-in', 'sign-in-failures'));
    await log.append(fields(31, 'power.change'));
    assert.equal(await log.prune('sign-in-failures', 10, null), 19);
    assert.equal(await log.prune('operator', 10, null), 0, 'two operator records are within their bound, whatever the other class holds');
    log = await openAuditLog(store.namespace('records'));
    assert.deepEqual([log.count('operator'), log.count('sign-in-failures')], [2, 10]);
    const all = await log.query({}, 0, 100);
    assert.equal(all.total, 12);
    assert.deepEqual(all.records.map((r) => r.id), ['2', 'f29', 'f28', 'f27', 'f26', 'f25', 'f24', 'f23', 'f22', 'f21', 'f20', '1']);
    assert.deepEqual((await log.query({ class: 'operator' }, 0, 100)).records.map((r) => r.action), ['power.change', 'credential.create']);
    const page = await log.query({}, 10, 5);
    assert.deepEqual(page.records.map((r) => r.id), ['f20', '1']);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
