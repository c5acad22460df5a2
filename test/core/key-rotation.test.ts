/**
 * `amt-gateway rotate-key` killed with SIGKILL at 20 seeded random moments: after each kill every
 * sealed secret of the store (device credentials, CIRA accounts, a plugin's own) is sealed under one
 * key, the old or the new, that is on disk, and opens to what was sealed; never a mix, never neither.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestGateway } from '../helpers/gateway-harness.js';
import { openStore } from '../../core/store/level-store.js';
import { createSealer, keyId } from '../../core/secrets/sealer.js';
import { mapSealed, sealedKeyIdsInJson } from '../../core/secrets/sealed-values.js';
import { establishMasterKey } from '../../core/secrets/key-check.js';
import { rotateMasterKey } from '../../core/secrets/key-rotation.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NO_ENV_KEY = { AMTGW_MASTER_KEY: '' };

function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const readKey = async (file: string) => (existsSync(file) ? new Uint8Array(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64')) : undefined);

/** Every sealed value of the store opened: raw key -> the plaintexts, in order. Asserts one key id for all of them. */
async function openEverySecret(dataDir: string, keyFile: string): Promise<{ id: string; plaintexts: Map<string, string[]> }> {
  const onDisk = [await readKey(keyFile), await readKey(`${keyFile}.new`)].filter((k) => k !== undefined) as Uint8Array[];
  const store = await openStore(dataDir);
  try {
    const ids = new Set<string>();
    const values: Array<[string, string]> = [];
    for await (const page of store.rawPages()) {
      for (const [key, json] of page) {
        const found = sealedKeyIdsInJson(json);
        found.forEach((id) => ids.add(id));
        if (found.length) values.push([key, json]);
      }
    }
    assert.equal(ids.size, 1, `every secret under one key, never a mix: ${[...ids].join(', ')}`);
    const id = [...ids][0]!;
    const key = onDisk.find((k) => keyId(k) === id);
    assert.ok(key, `the key the store is sealed under (${id}) is on disk (master.key or master.key.new)`);
    const sealer = createSealer(key);
    const plaintexts = new Map<string, string[]>();
    for (const [rawKey, json] of values) {
      const opened: string[] = [];
      mapSealed(JSON.parse(json), (sealed) => {
        opened.push(sealer.unseal(sealed));
        return sealed;
      });
      plaintexts.set(rawKey, opened);
    }
    const recovered = await establishMasterKey(store, store.namespace('core'), keyFile, {}, dataDir);
    assert.equal(keyId(recovered.key), id, 'a start (with its recovery) finds the key the store is sealed under');
    assert.equal(keyId((await readKey(keyFile))!), id, 'and the key file holds it afterwards');
    return { id, plaintexts };
  } finally {
    await store.close();
  }
}

function runRotateKey(args: string[]): { exited: Promise<{ code: number | null; signal: string | null; output: string }>; opening: Promise<number>; kill: () => void } {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, env: { ...process.env, AMTGW_MASTER_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let markOpening: (at: number) => void;
  const opening = new Promise<number>((resolve) => (markOpening = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('rotate-key: opening the store')) markOpening(performance.now());
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null; output: string }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, output })));
  return { exited, opening, kill: () => child.kill('SIGKILL') };
}

test('rotate-key killed at random moments (at least 20, ten of them mid-way) leaves every secret readable under the old or the new key, never a mix or neither', { timeout: 400_000 }, async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'amtgw-rotate-'));
  const keyFile = join(dataDir, 'master.key');
  const configFile = join(dataDir, 'site.json');
  try {
    const gw = await startTestGateway({ plugins: ['rest-api', 'cira'], dataDir, env: NO_ENV_KEY, overrides: { plugins: { cira: { enable: true, options: { port: 0 } } } } });
    const token = await gw.login();
    for (let i = 0; i < 20; i++) {
      assert.equal((await gw.request('POST', '/api/credentials', { token, body: { name: `cred-${i}`, username: 'admin', password: `Device-Secret-${i}` } })).status, 201);
    }
    for (let i = 0; i < 5; i++) {
      const res = await gw.request('POST', '/api/cira/accounts', { token, body: { username: `mps-${i}`, password: `Mps-Secret-${i}-long-enough` } });
      assert.equal(res.status, 201, await res.text());
    }
    await gw.stop();
    // A plugin's own sealed values, some nested, enough that re-sealing takes a while to kill into.
    const original = (await readKey(keyFile))!;
    const sealer = createSealer(original);
    const store = await openStore(dataDir);
    await store.namespace('plugin:vault').batch(Array.from({ length: 250 }, (_, i) => ({ type: 'put' as const, key: `s${i}`, value: { label: `n${i}`, inner: { secret: sealer.seal(`plugin-secret-${i}`), list: [sealer.seal(`second-${i}`)] } } })));
    await store.close();
    await writeFile(configFile, JSON.stringify({ dataDir, log: { level: 'warn' } }));

    const before = await openEverySecret(dataDir, keyFile);
    assert.equal(before.id, keyId(original));
    assert.ok(before.plaintexts.size >= 250 + 20 + 5, `credentials, CIRA accounts and the plugin's secrets (${before.plaintexts.size})`);

    const measured = runRotateKey([join(ROOT, 'core/main.ts'), 'rotate-key', '--config', configFile]);
    const opening = await measured.opening;
    const full = await measured.exited;
    assert.equal(full.code, 0, full.output);
    assert.match(full.output, /master key rotated: key id \S+ -> \S+, \d+ stored values re-sealed/);
    const workMs = performance.now() - opening;
    const afterFull = await openEverySecret(dataDir, keyFile);
    assert.notEqual(afterFull.id, before.id, 'a whole run switches the key');
    assert.deepEqual(afterFull.plaintexts, before.plaintexts, 'the same secrets, re-sealed');

    const random = mulberry32(0x1923);
    const outcomes = { old: 0, new: 0, killed: 0 };
    let previous = afterFull.id;
    // Twenty kills at least, and more (up to 40) until ten have landed mid-way: the rotation's own
    // time varies with the machine's load, so a fixed count of random moments may land after it ends.
    for (let kill = 0; kill < 40 && (kill < 20 || outcomes.killed < 10); kill++) {
      const run = runRotateKey([join(ROOT, 'test/core/rotate-key-child.ts'), dataDir, keyFile]);
      await run.opening;
      await new Promise((resolve) => setTimeout(resolve, random() * workMs * 1.1));
      run.kill();
      const { signal } = await run.exited;
      if (signal === 'SIGKILL') outcomes.killed++;
      const after = await openEverySecret(dataDir, keyFile);
      assert.deepEqual(after.plaintexts, before.plaintexts, `after kill ${kill + 1}: every secret opens to what was sealed`);
      outcomes[after.id === previous ? 'old' : 'new']++;
      previous = after.id;
    }
    assert.ok(outcomes.killed >= 10, `most runs were killed mid-way (${JSON.stringify(outcomes)})`);
    console.log(`rotate-key kills: ${JSON.stringify(outcomes)} (work ${Math.round(workMs)} ms)`);

    const again = await startTestGateway({ plugins: ['rest-api', 'cira'], dataDir, env: NO_ENV_KEY, overrides: { plugins: { cira: { enable: true, options: { port: 0 } } } } });
    try {
      const check = await again.request('GET', '/api/test/test-credential', { token: await again.login() });
      assert.equal(((await check.json()) as { unsealed: boolean }).unsealed, true, 'the gateway starts and opens its credentials');
    } finally {
      await again.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a rotation cut off after the store was re-sealed and before the key file was switched is finished by the next start', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'], env: NO_ENV_KEY });
  const keyFile = join(gw.dataDir, 'master.key');
  try {
    assert.equal((await gw.request('POST', '/api/credentials', { token: await gw.login(), body: { name: 'c', username: 'admin', password: 'Device-Secret' } })).status, 201);
    await gw.stop();
    const oldId = keyId((await readKey(keyFile))!);
    const store = await openStore(gw.dataDir);
    const crash = new Error('killed');
    await assert.rejects(
      rotateMasterKey(store, keyFile, {}, gw.dataDir, (step) => {
        if (step === 'store re-sealed') throw crash;
      }),
      crash,
    );
    await store.close();
    assert.equal(keyId((await readKey(keyFile))!), oldId, 'the key file still holds the old key');
    assert.ok(existsSync(`${keyFile}.new`), 'the new key waits in master.key.new');
    const logs: string[] = [];
    const again = await startTestGateway({ plugins: ['rest-api'], dataDir: gw.dataDir, env: NO_ENV_KEY, logs });
    try {
      const check = await again.request('GET', '/api/test/test-credential', { token: await again.login() });
      assert.equal(((await check.json()) as { unsealed: boolean }).unsealed, true);
      assert.ok(logs.some((l) => /finished a key rotation that was cut off/.test(l)));
    } finally {
      await again.stop();
    }
    assert.notEqual(keyId((await readKey(keyFile))!), oldId, 'the key file now holds the new key');
    assert.equal(existsSync(`${keyFile}.new`), false);
    assert.ok(existsSync(`${keyFile}.old-${oldId}`), 'the old key is kept for older backups');
  } finally {
    await gw.cleanup();
  }
});

test('rotate-key refuses while AMTGW_MASTER_KEY is set, and a running gateway keeps the store locked against it', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'] });
  try {
    await gw.stop();
    const store = await openStore(gw.dataDir);
    await assert.rejects(rotateMasterKey(store, join(gw.dataDir, 'master.key'), { AMTGW_MASTER_KEY: gw.masterKey }, gw.dataDir), /AMTGW_MASTER_KEY is set/);
    await store.close();
  } finally {
    await gw.cleanup();
  }
});
