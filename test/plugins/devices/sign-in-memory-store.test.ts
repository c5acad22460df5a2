/** The sign-in memory on its own, over a real LevelDB: budget, reservations, versions, lockout pause, persistence. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../core/store/level-store.js';
import { openSignInMemory, type SignInReport } from '../../../plugins/devices/sign-in/sign-in-memory.js';
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

test('operations beyond the budget held by others under way wait for them to settle, bounded, and are not a lockout risk', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-sign-in-'));
  const store = await openStore(dir);
  try {
    const memory = await openSignInMemory(store.namespace('sign-in'), SETTINGS, () => 'v1', logger);
    const address = '127.0.15.2';
    const held = [memory.plan(address, ['a'], { maxAttempts: 4 }), memory.plan(address, ['a'], { maxAttempts: 4 })];
    const busy = memory.plan(address, ['a'], { maxAttempts: 3 });
    assert.deepEqual([busy.pause?.reason, busy.busy, memory.paused(address)], ['budget-spent', true, false]);

    // Without a settle, the wait ends at its bound and says the device is busy.
    const timedOut = await memory.planWhenFree(address, ['a'], { maxAttempts: 3, waitMs: 50 });
    assert.deepEqual([timedOut.busy, timedOut.credentialIds], [true, []]);

    // A settle elsewhere lets the waiting operation plan with what was given back.
    const waiting = memory.planWhenFree(address, ['a'], { maxAttempts: 3, waitMs: 10_000 });
    await held[0]!.settle(report({ succeeded: 'a' }));
    const plan = await waiting;
    assert.deepEqual([plan.pause, plan.busy, plan.credentialIds, plan.maxFailures], [null, false, ['a'], 3]);

    // A budget really spent is no busy pause: nothing to wait for.
    await held[1]!.settle(report({ refused: ['a'], failedLogins: 4 }));
    await plan.settle(report({ failedLogins: 4 }));
    const spent = await memory.planWhenFree(address, ['b'], { maxAttempts: 3, waitMs: 10_000 });
    assert.deepEqual([spent.pause?.reason, spent.busy, memory.paused(address)], ['budget-spent', false, true]);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
