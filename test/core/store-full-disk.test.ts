/**
 * A full disk: the first failed write turns the store read-only (503 GW_ERR_STORE_READ_ONLY on
 * every write, readiness 503 naming the store, liveness 200 saying why), and every write that was
 * acknowledged is there after a restart. Two real ways to fill the disk: a file size limit
 * (`ulimit -f`, works anywhere) and a small tmpfs in a mount namespace of the test's own (root only;
 * skipped cleanly elsewhere).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startTestGateway } from '../helpers/gateway-harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = join(ROOT, 'test/core/full-disk-child.ts');

interface ChildResult {
  acknowledged: string[];
  refusal?: { status: number; body: { type: string; detail: string } };
  next: { status: number; body: { type: string } };
  ready: { status: number; body: { checks: Array<{ name: string; ready: boolean; reason?: string }> } };
  health: { status: number; body: { status: string; store?: { state: string; reason: string } } };
  readStatus: number;
  afterSpace?: number;
  survivors?: string[];
  afterRestart?: number;
  restartError?: string;
}

function runChild(command: string[]): ChildResult {
  const out = execFileSync(command[0]!, command.slice(1), { cwd: ROOT, encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(out.trim().split('\n').pop()!) as ChildResult;
}

/** No file path in anything the gateway answers, unauthenticated or not: a file name at most. */
function assertNoPath(result: ChildResult, dataDir: string): void {
  const answered = { refusal: result.refusal, next: result.next, ready: result.ready, health: result.health };
  const text = JSON.stringify(answered);
  assert.ok(!text.includes(dataDir) && !/\/[\w.-]+\//.test(text.replaceAll('urn:amt-gateway', '')), `a path in an answer: ${text}`);
}

function assertReadOnly(result: ChildResult, cause: RegExp): void {
  assert.ok(result.acknowledged.length > 10, `writes went through before the disk filled (${result.acknowledged.length})`);
  assert.equal(result.refusal?.status, 503);
  assert.match(result.refusal!.body.type, /GW_ERR_STORE_READ_ONLY$/);
  assert.match(result.refusal!.body.detail, cause);
  assert.equal(result.next.status, 503, 'writes after the failure are refused too');
  assert.match(result.next.body.type, /GW_ERR_STORE_READ_ONLY$/);
  assert.equal(result.ready.status, 503);
  assert.match(result.ready.body.checks.find((c) => c.name === 'store')?.reason ?? '', /the store is read-only: .*/);
  assert.equal(result.health.status, 200, 'liveness stays 200: restarting would not free the disk');
  assert.equal(result.health.body.store?.state, 'read-only');
  assert.equal(result.readStatus, 200, 'reads still work');
}

test('writes past a file size limit turn the store read-only, and every acknowledged write survives a restart', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'amtgw-full-'));
  const masterKey = randomBytes(32).toString('base64');
  try {
    // 256 blocks of 512 bytes: LevelDB's log cannot grow past 128 KiB (EFBIG, as ENOSPC would fail it).
    const result = runChild(['sh', '-c', 'ulimit -f 256; exec "$0" "$@"', process.execPath, '--import', 'tsx', CHILD, dataDir, masterKey, '0']);
    assertReadOnly(result, /write failed \(IO error: 000\d+\.log: File too large\).*free disk space.*restart/);
    assertNoPath(result, dataDir);
    const again = await startTestGateway({ plugins: ['rest-api'], dataDir, masterKey });
    try {
      const list = await again.request('GET', '/api/credentials', { token: await again.login() });
      const survivors = new Set(((await list.json()) as Array<{ name: string }>).map((c) => c.name));
      assert.deepEqual(result.acknowledged.filter((name) => !survivors.has(name)), [], 'no acknowledged write is lost');
      assert.equal((await again.request('POST', '/api/credentials', { token: await again.login(), body: { name: 'later', username: 'admin', password: 'p' } })).status, 201);
    } finally {
      await again.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

const canMountTmpfs = (): boolean => spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o size=1m tmpfs /mnt'], { stdio: 'ignore' }).status === 0;

test('a full tmpfs turns the store read-only; after space returns and a restart every acknowledged write is there', { skip: canMountTmpfs() ? false : 'needs root to mount a tmpfs in its own mount namespace' }, async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'amtgw-tmpfs-'));
  const masterKey = randomBytes(32).toString('base64');
  try {
    // 2 MiB, of which a filler takes all but ~160 KiB; the child frees it before restarting.
    const mountAndRun = 'mount --make-rprivate / && mount -t tmpfs -o size=2m,mode=0700 tmpfs "$1" && exec "$0" --import tsx "$CHILD" "$@"';
    const result = runChild(['env', `CHILD=${CHILD}`, 'unshare', '-m', 'sh', '-c', mountAndRun, process.execPath, dataDir, masterKey, String(2 * 1024 * 1024 - 160 * 1024), '--restart']);
    assertReadOnly(result, /write failed \(IO error: 000\d+\.log: No space left on device\).*free disk space.*restart/);
    assertNoPath(result, dataDir);
    assert.equal(result.afterSpace, 503, 'read-only until restart, even once space is back');
    assert.equal(result.restartError, undefined);
    const survivors = new Set(result.survivors);
    assert.deepEqual(result.acknowledged.filter((name) => !survivors.has(name)), [], 'no acknowledged write is lost');
    assert.equal(result.afterRestart, 201, 'writable again after the restart');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
