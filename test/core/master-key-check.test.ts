/** The key check: a wrong or missing master key stops start-up, naming the key file and the way out, and writes nothing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestGateway, type TestGateway } from '../helpers/gateway-harness.js';
import { openStore } from '../../core/store/level-store.js';
import { KEY_CHECK_KEY } from '../../core/secrets/key-check.js';

async function withCredential(options: Parameters<typeof startTestGateway>[0] = {}): Promise<TestGateway> {
  const gw = await startTestGateway({ plugins: ['rest-api'], ...options });
  const res = await gw.request('POST', '/api/credentials', { token: await gw.login(), body: { name: 'c', username: 'admin', password: 'Sealed-Secret-1' } });
  assert.equal(res.status, 201, await res.text());
  await gw.stop();
  return gw;
}

const storeEntries = async (dataDir: string) => {
  const store = await openStore(dataDir);
  try {
    const entries: string[] = [];
    for await (const page of store.rawPages()) for (const [key, json] of page) entries.push(`${key}=${json}`);
    return entries;
  } finally {
    await store.close();
  }
};

test('a start with the wrong key refuses, names the key file, and leaves every record as it was', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'amtgw-key-'));
  const keyFile = join(dataDir, 'master.key');
  try {
    const gw = await withCredential({ dataDir, env: { AMTGW_MASTER_KEY: '' } });
    const rightKey = await readFile(keyFile, 'utf8');
    const before = await storeEntries(dataDir);
    await writeFile(keyFile, randomBytes(32).toString('base64') + '\n');
    await assert.rejects(startTestGateway({ plugins: ['rest-api'], dataDir, env: { AMTGW_MASTER_KEY: '' } }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_MASTER_KEY');
      assert.ok(err.message.includes(`the key file ${keyFile}`), err.message);
      assert.match(err.message, /is not the key the store .* is sealed with .*put its file back .*nothing was written/);
      return true;
    });
    assert.deepEqual(await storeEntries(dataDir), before, 'no record changed (no token, no user, no key check)');
    await writeFile(keyFile, rightKey);
    const again = await startTestGateway({ plugins: ['rest-api'], dataDir, env: { AMTGW_MASTER_KEY: '' } });
    const list = await again.request('GET', '/api/credentials', { token: await again.login() });
    assert.equal(list.status, 200);
    await again.stop();
    void gw;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a missing key beside a store with sealed secrets refuses and creates no new key file', async () => {
  const gw = await withCredential({ env: { AMTGW_MASTER_KEY: '' } });
  const keyFile = join(gw.dataDir, 'master.key');
  try {
    await rm(keyFile);
    const before = await storeEntries(gw.dataDir);
    await assert.rejects(startTestGateway({ plugins: ['rest-api'], dataDir: gw.dataDir, env: { AMTGW_MASTER_KEY: '' } }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_MASTER_KEY');
      assert.ok(err.message.includes(`the key file ${keyFile} is missing`), err.message);
      assert.match(err.message, /Put that key file back .* none was created/);
      return true;
    });
    assert.equal(existsSync(keyFile), false, 'no fresh key');
    assert.deepEqual(await storeEntries(gw.dataDir), before, 'no record changed');
  } finally {
    await gw.cleanup();
  }
});

test('a store from before key checks is checked by its sealed values, and gets its key check at the first right start', async () => {
  const gw = await withCredential();
  try {
    const store = await openStore(gw.dataDir);
    await store.namespace('core').del(KEY_CHECK_KEY);
    await store.close();
    await assert.rejects(startTestGateway({ plugins: ['rest-api'], dataDir: gw.dataDir, masterKey: randomBytes(32).toString('base64') }), { code: 'GW_ERR_MASTER_KEY' });
    const right = await startTestGateway({ plugins: ['rest-api'], dataDir: gw.dataDir, masterKey: gw.masterKey });
    await right.stop();
    const reopened = await openStore(gw.dataDir);
    assert.ok(await reopened.namespace('core').get(KEY_CHECK_KEY), 'the key check is written once the key is known right');
    await reopened.close();
  } finally {
    await gw.cleanup();
  }
});

test('a first start creates the key file and the key check; an empty store with no key is a first start', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'amtgw-key-'));
  try {
    const gw = await startTestGateway({ plugins: ['rest-api'], dataDir, env: { AMTGW_MASTER_KEY: '' } });
    await gw.stop();
    assert.equal((await stat(join(dataDir, 'master.key'))).mode & 0o777, 0o600);
    const again = await startTestGateway({ plugins: ['rest-api'], dataDir, env: { AMTGW_MASTER_KEY: '' } });
    await again.stop();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
