/**
 * A damaged store stops start-up with a message naming the file and the way out, never a silent
 * loss: each test damages real LevelDB files on disk as a failing disk or a bad copy would.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { openStore } from '../../core/store/level-store.js';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '../helpers/gateway-harness.js';

const CREDENTIALS = 40;

/** A stopped gateway's data directory holding 40 credentials: the first 20 in a table (.ldb), the last 20 in the log. */
async function storeWithCredentials(): Promise<TestGateway> {
  let gw = await startTestGateway({ plugins: ['rest-api'] });
  const masterKey = gw.masterKey;
  for (let part = 0; part < 2; part++) {
    const token = await gw.login();
    for (let i = part * 20; i < part * 20 + 20; i++) {
      const res = await gw.request('POST', '/api/credentials', { token, body: { name: `cred-${i}`, username: 'admin', password: `Secret-${i}-padding-to-fill-log-blocks`.padEnd(200, 'x') } });
      assert.equal(res.status, 201);
    }
    await gw.stop();
    if (part === 0) gw = await startTestGateway({ plugins: ['rest-api'], dataDir: gw.dataDir, masterKey });
  }
  const files = await readdir(join(gw.dataDir, 'db'));
  assert.ok(files.some((f) => f.endsWith('.ldb')) && files.some((f) => f.endsWith('.log')), `a table and a log: ${files.join(' ')}`);
  return gw;
}

const dbFile = async (gw: TestGateway, pattern: RegExp) => join(gw.dataDir, 'db', (await readdir(join(gw.dataDir, 'db'))).find((f) => pattern.test(f) && !f.startsWith('LOG'))!);

async function garble(file: string, from: number, length: number): Promise<void> {
  const bytes = await readFile(file);
  for (let i = from; i < Math.min(bytes.length, from + length); i++) bytes[i] = bytes[i]! ^ 0x5a;
  await writeFile(file, bytes);
}

async function fingerprint(dir: string): Promise<string> {
  const out: string[] = [];
  for (const f of (await readdir(dir)).sort()) {
    if (f === 'LOCK' || f.startsWith('LOG')) continue;
    out.push(`${f}:${createHash('sha256').update(await readFile(join(dir, f))).digest('hex')}`);
  }
  return out.join('\n');
}

const restart = (gw: TestGateway, extra: { logs?: string[]; acceptStoreDamage?: boolean } = {}) =>
  startTestGateway({ plugins: ['rest-api'], dataDir: gw.dataDir, masterKey: gw.masterKey, ...extra });

async function credentialCount(gw: TestGateway): Promise<number> {
  const res = await gw.request('GET', '/api/credentials', { token: await gw.login() });
  assert.equal(res.status, 200);
  return ((await res.json()) as unknown[]).length;
}

test('a damaged write-ahead log stops start-up naming the log file and the way out, and the store is left exactly as it was', async () => {
  const gw = await storeWithCredentials();
  try {
    const log = await dbFile(gw, /\.log$/);
    await garble(log, 100, 4);
    const before = await fingerprint(join(gw.dataDir, 'db'));
    await assert.rejects(restart(gw), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_STORE_DAMAGED');
      assert.ok(err.message.includes(`${log}: dropping`), err.message);
      assert.match(err.message, /Nothing was changed\. Restore the last backup .*amt-gateway restore FILE.*--accept-store-damage/);
      return true;
    });
    assert.equal(await fingerprint(join(gw.dataDir, 'db')), before, 'the refused start changed no file of the store');
    const logs: string[] = [];
    const accepted = await restart(gw, { logs, acceptStoreDamage: true });
    try {
      assert.ok(logs.some((l) => /"level":"error".*STORE DAMAGED: starting anyway/.test(l) && l.includes('dropping')), 'the loss is logged loudly');
      const count = await credentialCount(accepted);
      assert.ok(count >= 20 && count < CREDENTIALS, `what LevelDB could read: ${count}`);
    } finally {
      await accepted.stop();
    }
    const clean = await restart(gw);
    await clean.stop();
  } finally {
    await gw.cleanup();
  }
});

test('a damaged or missing CURRENT, a damaged MANIFEST and a missing table each stop start-up naming that file', async () => {
  const gw = await storeWithCredentials();
  const db = join(gw.dataDir, 'db');
  const saved = new Map<string, Buffer>();
  for (const f of await readdir(db)) if (f !== 'LOCK') saved.set(f, await readFile(join(db, f)));
  const putBack = async () => {
    for (const f of await readdir(db)) if (!saved.has(f) && f !== 'LOCK') await rm(join(db, f));
    for (const [f, bytes] of saved) await writeFile(join(db, f), bytes);
  };
  const refusal = async (file: string) =>
    assert.rejects(restart(gw), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_STORE_DAMAGED');
      assert.ok(err.message.includes(`${file} is damaged or missing`), err.message);
      assert.match(err.message, /Restore the last backup into an empty data directory/);
      return true;
    });
  try {
    await writeFile(join(db, 'CURRENT'), 'garbage');
    await refusal(join(db, 'CURRENT'));
    await putBack();
    await rm(join(db, 'CURRENT'));
    await refusal(join(db, 'CURRENT'));
    assert.deepEqual((await readdir(db)).filter((f) => f.startsWith('MANIFEST')).length, 1, 'no new empty store was made beside the old files');
    await putBack();
    const manifest = await dbFile(gw, /^MANIFEST/);
    await garble(manifest, 20, 4);
    await refusal(manifest);
    await putBack();
    const table = await dbFile(gw, /\.ldb$/);
    await rm(table);
    await refusal(table);
    await putBack();
    const fine = await restart(gw);
    assert.equal(await credentialCount(fine), CREDENTIALS, 'the files put back are a whole store again');
    await fine.stop();
  } finally {
    await gw.cleanup();
  }
});

test('a table damaged where the kernel reads at start stops start-up naming the way out (the error log line names the store)', async () => {
  const gw = await storeWithCredentials();
  try {
    const table = await dbFile(gw, /\.ldb$/);
    await garble(table, 0, 64);
    await assert.rejects(restart(gw), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_STORE_DAMAGED');
      assert.ok(err.message.startsWith('the store could not read its files (Corruption'), err.message);
      assert.match(err.message, /Restore the last backup/);
      return true;
    });
  } finally {
    await gw.cleanup();
  }
});

test('a table damaged where no start-up read goes answers 503 GW_ERR_STORE_DAMAGED on the reads it breaks, and the store says it is damaged', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'amtgw-store-'));
  try {
    let store = await openStore(dataDir);
    await store.namespace('core').put('first', { ok: true });
    await store.namespace('things').batch(Array.from({ length: 400 }, (_, i) => ({ type: 'put' as const, key: `k${String(i).padStart(4, '0')}`, value: { i, padding: randomBytes(150).toString('base64') } })));
    await store.close();
    store = await openStore(dataDir); // replays the log into a table
    await store.close();
    const table = join(dataDir, 'db', (await readdir(join(dataDir, 'db'))).find((f) => f.endsWith('.ldb'))!);
    await garble(table, Math.floor((await readFile(table)).length * 0.6), 64);
    store = await openStore(dataDir);
    try {
      assert.deepEqual(await store.namespace('core').get('first'), { ok: true }, 'the blocks left whole still read');
      assert.deepEqual(store.status(), { state: 'ok' });
      await assert.rejects(
        (async () => {
          for await (const page of store.namespace('things').pages()) void page;
        })(),
        (err: Error & { status?: number; code?: string }) => {
          assert.equal(err.status, 503);
          assert.equal(err.code, 'GW_ERR_STORE_DAMAGED');
          assert.ok(err.message.startsWith('the store could not read its files (Corruption'), err.message);
          assert.ok(!err.message.includes(dataDir) && !err.message.includes('/'), `no path in an answer: ${err.message}`);
          return true;
        },
      );
      const status = store.status();
      assert.equal(status.state, 'damaged');
      await store.namespace('core').put('later', 1);
    } finally {
      await store.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a write-ahead log cut short starts with the whole records, and says loudly in the log what recovery dropped', async () => {
  const gw = await storeWithCredentials();
  try {
    const log = await dbFile(gw, /\.log$/);
    const bytes = await readFile(log);
    // Cut in the middle of a record, as a truncated copy or a crash during a write leaves it.
    await writeFile(log, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const logs: string[] = [];
    const again = await restart(gw, { logs });
    try {
      const count = await credentialCount(again);
      assert.ok(count >= 20 && count < CREDENTIALS, `${count} credentials: the table's 20 and the log's whole records`);
      const lines = logs.map((l) => JSON.parse(l) as { level: string; msg: string; file?: string; droppedBytes?: number; lastWholeSequence?: number });
      const loud = lines.find((l) => l.msg.startsWith('STORE RECOVERY'));
      assert.ok(loud, `no loud line about the cut log: ${logs.filter((l) => l.includes('"error"') || l.includes('"warn"')).join('\n')}`);
      assert.equal(loud.level, 'error');
      assert.equal(loud.file, log.split('/').pop());
      assert.ok((loud.droppedBytes ?? 0) > 0 && (loud.droppedBytes ?? 0) < bytes.length, `droppedBytes ${loud.droppedBytes}`);
      assert.equal(typeof loud.lastWholeSequence, 'number');
    } finally {
      await again.stop();
    }
  } finally {
    await gw.cleanup();
  }
});

test('a log that ends on a whole record says nothing', async () => {
  const gw = await storeWithCredentials();
  try {
    const logs: string[] = [];
    const again = await restart(gw, { logs });
    try {
      assert.equal(await credentialCount(again), CREDENTIALS);
      assert.ok(!logs.some((l) => l.includes('STORE RECOVERY')), 'no alarm for a whole log');
    } finally {
      await again.stop();
    }
  } finally {
    await gw.cleanup();
  }
});
