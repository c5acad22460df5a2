import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createSealer } from '../../core/secrets/sealer.js';
import { loadMasterKey } from '../../core/secrets/master-key.js';

test('sealing uses a fresh nonce each time and opens only under the same key', () => {
  const key = new Uint8Array(randomBytes(32));
  const sealer = createSealer(key);
  const a = sealer.seal('P@ssw0rd-secret');
  const b = sealer.seal('P@ssw0rd-secret');
  assert.notEqual(a, b);
  assert.equal(a.includes('P@ssw0rd'), false);
  assert.equal(sealer.unseal(a), 'P@ssw0rd-secret');
  const other = createSealer(new Uint8Array(randomBytes(32)));
  assert.throws(() => other.unseal(a), { code: 'GW_ERR_UNSEAL_FAILED', message: /sealed under a different master key/ });
});

test('a tampered sealed value fails authentication instead of yielding garbage', () => {
  const sealer = createSealer(new Uint8Array(randomBytes(32)));
  const [v, id, nonce, box] = sealer.seal('secret-value').split('.');
  const bytes = Buffer.from(box!, 'base64');
  bytes[0] = bytes[0]! ^ 0xff;
  assert.throws(() => sealer.unseal([v, id, nonce, bytes.toString('base64')].join('.')), { code: 'GW_ERR_UNSEAL_FAILED', message: /failed authentication/ });
  assert.throws(() => sealer.unseal('not sealed at all'), { code: 'GW_ERR_UNSEAL_FAILED' });
});

test('the master key file is created on first start with owner-only permissions, then reused; AMTGW_MASTER_KEY wins', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-key-'));
  const file = join(dir, 'keys', 'master.key');
  const first = loadMasterKey(file, {});
  assert.equal(first.source, 'created');
  assert.equal((await stat(file)).mode & 0o777, 0o600);
  const again = loadMasterKey(file, {});
  assert.equal(again.source, 'file');
  assert.deepEqual(again.key, first.key);
  assert.equal(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64').length, 32);
  const fromEnv = loadMasterKey(file, { AMTGW_MASTER_KEY: randomBytes(32).toString('base64') });
  assert.equal(fromEnv.source, 'env');
  assert.throws(() => loadMasterKey(file, { AMTGW_MASTER_KEY: 'c2hvcnQ=' }), { code: 'GW_ERR_MASTER_KEY', message: /must be 32 bytes/ });
});
