/**
 * Reading where a real LevelDB write-ahead log ends: whole logs (small writes, and a write spread
 * over several blocks) end on a whole record; cut anywhere inside the last write, the incomplete
 * bytes and the last whole write's sequence are found, as LevelDB then replays exactly the writes
 * before the cut.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../core/store/level-store.js';
import { cutLogTail } from '../../core/store/log-tail.js';

async function logOf(writes: Array<{ key: string; bytes: number }>): Promise<{ log: Buffer; dir: string; file: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-log-tail-'));
  const store = await openStore(dir);
  for (const { key, bytes } of writes) await store.namespace('t').put(key, 'x'.repeat(bytes));
  await store.close();
  const file = join(dir, 'db', (await readdir(join(dir, 'db'))).find((f) => /^\d+\.log$/.test(f))!);
  return { log: await readFile(file), dir, file };
}

test('whole logs end on a whole record; the last whole sequence is that of the last write', async () => {
  const { log, dir } = await logOf([...Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, bytes: 100 })), { key: 'big', bytes: 80_000 }]);
  try {
    assert.equal(cutLogTail(log), null);
    assert.ok(log.length > 2 * 32768, 'the big write spans blocks');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a log cut inside a write spread over several blocks drops that whole write, from its first fragment', async () => {
  const { log, dir, file } = await logOf([{ key: 'small', bytes: 100 }, { key: 'big', bytes: 80_000 }]);
  try {
    const firstWrite = cutLogTail(log.subarray(0, 200))!;
    assert.ok(firstWrite.droppedBytes > 0);
    const cut = cutLogTail(log.subarray(0, 50_000))!;
    assert.equal(typeof cut.lastWholeSequence, 'number');
    assert.equal(cut.lastWholeSequence, firstWrite.lastWholeSequence, 'the small write is the last whole one, wherever the big one was cut');
    assert.ok(cut.droppedBytes > 49_000, `dropped ${cut.droppedBytes}: from the big write's first fragment on`);
    assert.equal(cut.cutWriteEntries, 1);
    // LevelDB agrees: only the small write is there after the cut.
    await writeFile(file, log.subarray(0, 50_000));
    const store = await openStore(dir);
    try {
      assert.equal(await store.namespace('t').get('small'), 'x'.repeat(100));
      assert.equal(await store.namespace('t').get('big'), undefined);
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a cut inside a header, or right after one, is an incomplete record too', async () => {
  const { log, dir } = await logOf([{ key: 'a', bytes: 50 }, { key: 'b', bytes: 50 }]);
  try {
    const whole = cutLogTail(log);
    assert.equal(whole, null);
    for (const keep of [log.length - 1, log.length - 60, log.length - 70]) {
      const cut = cutLogTail(log.subarray(0, keep));
      assert.ok(cut && cut.droppedBytes > 0 && cut.droppedBytes < log.length, `cut at ${keep}: ${JSON.stringify(cut)}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
