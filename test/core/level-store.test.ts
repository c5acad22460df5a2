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

test('pages hold the same entries in order, in pages of at most the size asked for (and never over 10,000), and stop when the reader does', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-store-'));
  const store = await openStore(dir);
  try {
    const ns = store.namespace('things');
    await ns.batch(Array.from({ length: 12_000 }, (_, i) => ({ type: 'put' as const, key: keyOf(i), value: { i } })));
    const sizes = async (options: { prefix?: string; limit?: number; reverse?: boolean; size?: number }) => {
      const out: number[] = [];
      for await (const page of ns.pages<{ i: number }>(options)) out.push(page.length);
      return out;
    };
    const pages: Array<Array<[string, { i: number }]>> = [];
    for await (const page of ns.pages<{ i: number }>({ size: 700, limit: 2500 })) pages.push(page);
    // LevelDB may cut a page short (a byte budget per read); never longer than asked, never empty.
    assert.ok(pages.every((p) => p.length > 0 && p.length <= 700), `page sizes ${pages.map((p) => p.length).join(', ')}`);
    assert.deepEqual(pages.flat().map(([key, value]) => [key, value.i]), Array.from({ length: 2500 }, (_, i) => [keyOf(i), i]));
    const byDefault = await sizes({});
    assert.ok(Math.max(...byDefault) <= 1000 && byDefault.reduce((a, b) => a + b) === 12_000, 'at most a thousand by default');
    const large = await sizes({ size: 50_000 });
    assert.ok(Math.max(...large) <= 10_000 && large.reduce((a, b) => a + b) === 12_000, 'never more than 10,000 at once');
    const small = await sizes({ prefix: 'k012', size: 30 });
    assert.ok(Math.max(...small) <= 30 && small.reduce((a, b) => a + b) === 100, 'by prefix');
    const keys = async (options: { prefix?: string; gte?: string; lt?: string }) => {
      const out: string[] = [];
      for await (const page of ns.pages(options)) out.push(...page.map(([key]) => key));
      return out;
    };
    assert.deepEqual(await keys({ gte: keyOf(1000), lt: keyOf(1003) }), [keyOf(1000), keyOf(1001), keyOf(1002)], '[gte, lt)');
    assert.deepEqual(await keys({ prefix: 'k0100', gte: keyOf(1008) }), [keyOf(1008), keyOf(1009)], 'prefix and range both apply');
    assert.deepEqual(await keys({ prefix: 'k0100', lt: keyOf(1002) }), [keyOf(1000), keyOf(1001)]);
    const halves = [...(await keys({ lt: 'k05' })), ...(await keys({ gte: 'k05' }))];
    assert.equal(halves.length, 12_000, 'two halves hold every entry once');
    const reversed: number[] = [];
    for await (const page of ns.pages<{ i: number }>({ reverse: true, limit: 5, size: 2 })) reversed.push(...page.map(([, v]) => v.i));
    assert.deepEqual(reversed, [11_999, 11_998, 11_997, 11_996, 11_995]);
    // Leaving after the first page, while the next one is being read ahead, closes the iterator cleanly.
    for await (const page of ns.pages({ size: 10 })) {
      assert.equal(page.length, 10);
      break;
    }
    await ns.put(keyOf(0), { i: -1 });
    assert.deepEqual(await ns.get(keyOf(0)), { i: -1 });
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('take: of takes of one key at once exactly one gets the value, across handles of one namespace; other namespaces and keys are not touched', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-store-'));
  const store = await openStore(dir);
  try {
    const nested = () => store.namespace('plugin:x').namespace('codes');
    await store.namespace('plugin:x').put('k', { other: true });
    await nested().put('other', { i: 0 });
    for (let round = 0; round < 50; round++) {
      await nested().put('k', { round });
      const taken = await Promise.all(Array.from({ length: 4 }, (_, i) => (i % 2 ? nested() : store.namespace('plugin:x').namespace('codes')).take<{ round: number }>('k')));
      assert.deepEqual(
        taken.filter((t) => t !== undefined),
        [{ round }],
        `round ${round}`,
      );
    }
    assert.equal(await nested().get('k'), undefined, 'taken means gone');
    assert.equal(await nested().take('missing'), undefined);
    assert.deepEqual(await store.namespace('plugin:x').get('k'), { other: true });
    assert.deepEqual(await nested().get('other'), { i: 0 });
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
