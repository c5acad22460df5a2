/** The sign-in memory on its own, over a real LevelDB: budget, reservations, versions, lockout pause, persistence. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../core/store/level-store.js';
import { openSignInMemory, type SignInReport } from '../../../plugins/rest-api/sign-in/sign-in-memory.js';
import type { Logger } from '../../../core/plugin-api.js';

const logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => logger } as unknown as Logger;
const SETTINGS = { lockoutThreshold: 10, safetyMargin: 2, lockoutPauseSeconds: 60 };
const IP = '127.0.15.1';
const report = (r: Partial<SignInReport>): SignInReport => ({ refused: [], failedLogins: 0, succeeded: null, lockedOut: false, ...r });

test('the memory keeps failed logins below the lockout across operations, retries a changed credential, and survives a reopen', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-sign-in-'));
  const store = await openStore(dir);
  const versions = new Map([['a', 'v1'], ['b', 'v1'], ['c', 'v1'], ['d', 'v1'], ['e', 'v1']]);
  try {
    const memory = await openSignInMemory(store.namespace('sign-in'), SETTINGS, (id) => versions.get(id), logger);
    const all = [...versions.keys()];

    // Two operations at once share the budget of 8: the second gets only what the first left.
    const first = memory.plan(IP, all, { maxAttempts: 5 });
    const second = memory.plan(IP, all, { maxAttempts: 5 });
    assert.deepEqual([first.maxFailures, second.maxFailures], [5, 3]);
    assert.equal(memory.plan(IP, all, { maxAttempts: 3 }).pause?.reason, 'budget-spent');
    await first.settle(report({ refused: ['a', 'b', 'c'], failedLogins: 4 }));
    await second.settle(report({ refused: ['d'], failedLogins: 2 }));
    assert.equal(memory.view(IP).consecutiveFailures, 6);

    // Refused credentials are left out; the budget left caps the next operation.
    const third = memory.plan(IP, all, { maxAttempts: 3 });
    assert.deepEqual([third.credentialIds, third.maxFailures, third.skippedRefused], [['e'], 2, ['a', 'b', 'c', 'd']]);
    await third.settle(report({ refused: ['e'], failedLogins: 2 }));
    const spent = memory.plan(IP, all, { maxAttempts: 3 });
    assert.equal(spent.pause?.reason, 'budget-spent');
    assert.deepEqual(spent.credentialIds, []);
    assert.equal(memory.paused(IP), true);

    // Reopened from the store: the same memory.
    const reopened = await openSignInMemory(store.namespace('sign-in'), SETTINGS, (id) => versions.get(id), logger);
    assert.equal(reopened.view(IP).consecutiveFailures, 8);
    assert.equal(reopened.view(IP).refused.length, 5);

    // A success elsewhere resets the count; a changed credential is tried again, the known one first.
    await reopened.reset(IP);
    assert.equal(reopened.view(IP).consecutiveFailures, 0);
    const known = reopened.plan(IP, all, { maxAttempts: 3, preferred: 'c' });
    await known.settle(report({ refused: ['c'], failedLogins: 1 }));
    versions.set('c', 'v2');
    const retry = reopened.plan(IP, all, { maxAttempts: 3, preferred: 'b' });
    assert.deepEqual(retry.credentialIds, ['b', 'a', 'c'], 'the changed credential is tried again, the preferred one first');
    await retry.settle(report({ succeeded: 'c', failedLogins: 0 }));
    assert.deepEqual([reopened.view(IP).consecutiveFailures, reopened.view(IP).workingCredential?.credentialId], [0, 'c']);

    // A lockout page pauses the device without blaming the credential.
    const locked = reopened.plan(IP, all, { maxAttempts: 3, preferred: 'c' });
    await locked.settle(report({ lockedOut: true }));
    const paused = reopened.plan(IP, all, { maxAttempts: 3, preferred: 'c' });
    assert.equal(paused.pause?.reason, 'locked-out');
    assert.ok(paused.pause?.until);
    assert.ok(!reopened.view(IP).refused.some((r) => r.credentialId === 'c'));
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
