/** The LevelDB store's namespaces: entries in key order, by prefix, limited and reversed, across pages. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../core/store/level-store.js';

const keyOf = (i: number) => `k${String(i).padStart(5, '0')}`;

test('entries come in key order, by prefix, limited or reversed, also past a thousand, and stop when the reader does', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-store-'));
  const store = await openStore(dir);
  try {
    const ns = store.namespace('things');
    await ns.batch(Array.from({ length: 2500 }, (_, i) => ({ type: 'put' as const, key: keyOf(i), value: { i } })));
    await store.namespace('other').put('k00000', { i: -1 });
    const read = async (options?: { prefix?: string; limit?: number; reverse?: boolean }) => {
      const out: Array<[string, number]> = [];
      for await (const [key, value] of ns.entries<{ i: number }>(options)) out.push([key, value.i]);
      return out;
    };
    const all = await read();
    assert.equal(all.length, 2500, 'only this namespace, every entry');
    assert.deepEqual(all.map(([key]) => key), Array.from({ length: 2500 }, (_, i) => keyOf(i)));
    assert.deepEqual(all.map(([, i]) => i).slice(995, 1005), [995, 996, 997, 998, 999, 1000, 1001, 1002, 1003, 1004]);
    assert.deepEqual((await read({ prefix: 'k012' })).map(([, i]) => i), Array.from({ length: 100 }, (_, i) => 1200 + i));
    assert.deepEqual((await read({ limit: 1200 })).length, 1200);
    assert.deepEqual((await read({ reverse: true, limit: 3 })).map(([, i]) => i), [2499, 2498, 2497]);
    let seen = 0;
    for await (const entry of ns.entries()) {
      assert.ok(entry);
      if (++seen === 10) break;
    }
    assert.equal(seen, 10);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
