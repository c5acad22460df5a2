import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLoginThrottle, type LoginAttempt } from '../../core/auth/login-throttle.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway-harness.js';

const begun = (verdict: LoginAttempt | { retryAfterSeconds: number }): LoginAttempt => {
  assert.ok('delayMs' in verdict, `attempt refused: ${JSON.stringify(verdict)}`);
  return verdict;
};

test('attempts under way count as failures: the cap holds before any of them has failed, and their delays grow', () => {
  const throttle = createLoginThrottle({ freeFailures: 2, maxFailures: 5, windowSeconds: 60, delayStepMs: 100, maxConcurrentPerName: 100 }, () => 1_000_000);
  const underWay = Array.from({ length: 5 }, () => begun(throttle.begin('127.0.61.1', 'olga')));
  assert.deepEqual(
    underWay.map((a) => a.delayMs),
    [0, 0, 100, 200, 300],
  );
  assert.deepEqual(throttle.begin('127.0.61.1', 'olga'), { retryAfterSeconds: 1 }, 'a sixth attempt is refused while five are under way');
  underWay.forEach((a) => a.end());
  assert.deepEqual(throttle.begin('127.0.61.1', 'olga'), { retryAfterSeconds: 60 }, 'the five ended as failures');
});

test('a succeeding attempt releases its reservation: it never counts against the name or the address', () => {
  const throttle = createLoginThrottle({ freeFailures: 0, maxFailures: 2, windowSeconds: 60, delayStepMs: 0, addressMaxFailures: 2 }, () => 1_000_000);
  for (let i = 0; i < 5; i++) {
    const attempt = begun(throttle.begin('127.0.61.2', 'olga'));
    attempt.succeeded();
    attempt.end();
    attempt.end();
  }
  begun(throttle.begin('127.0.61.2', 'igor')).end();
  assert.ok('delayMs' in throttle.begin('127.0.61.2', 'igor'), 'one failure from the address: under its ceiling of 2');
});

test('an attempt whose secret was never checked releases its reservation without a failure, and without clearing earlier ones', () => {
  const throttle = createLoginThrottle({ freeFailures: 0, maxFailures: 2, windowSeconds: 60, delayStepMs: 0 }, () => 1_000_000);
  begun(throttle.begin('device-1', 'user-a')).end();
  for (let i = 0; i < 5; i++) {
    const attempt = begun(throttle.begin('device-1', 'user-a'));
    attempt.unchecked();
    attempt.end();
  }
  begun(throttle.begin('device-1', 'user-a')).end();
  assert.ok('retryAfterSeconds' in throttle.begin('device-1', 'user-a'), 'the two real failures are both still counted');
});

test('at most maxConcurrentPerName attempts for a name and maxConcurrentPerAddress from an address run at once', () => {
  const throttle = createLoginThrottle({ freeFailures: 100, maxFailures: 1000, windowSeconds: 60, delayStepMs: 0, maxConcurrentPerName: 2, maxConcurrentPerAddress: 3 }, () => 1_000_000);
  const first = begun(throttle.begin('127.0.61.3', 'olga'));
  begun(throttle.begin('127.0.61.3', 'OLGA'));
  assert.deepEqual(throttle.begin('127.0.61.3', 'Olga'), { retryAfterSeconds: 1 }, 'a third attempt at the same name waits');
  begun(throttle.begin('127.0.61.3', 'igor'));
  assert.deepEqual(throttle.begin('127.0.61.3', 'anna'), { retryAfterSeconds: 1 }, 'a fourth attempt from the address waits');
  assert.ok('delayMs' in throttle.begin('127.0.61.4', 'olga'), 'another address is not held up');
  first.end();
  assert.ok('delayMs' in throttle.begin('127.0.61.3', 'anna'), 'an ended attempt frees its slot');
});

test('names are throttled the way sign-in matches them: case does not make a new name', () => {
  const throttle = createLoginThrottle({ freeFailures: 0, maxFailures: 3, windowSeconds: 60, delayStepMs: 0 }, () => 1_000_000);
  for (const name of ['victim3', 'Victim3', 'vICTIM3']) begun(throttle.begin('127.0.61.5', name)).end();
  assert.ok('retryAfterSeconds' in throttle.begin('127.0.61.5', 'VICTIM3'));
});

test('nameMaxFailures counts a name\'s failures from every address together, and they expire with the window', () => {
  let now = 1_000_000;
  const throttle = createLoginThrottle({ freeFailures: 5, maxFailures: 5, windowSeconds: 60, delayStepMs: 0, nameMaxFailures: 3 }, () => now);
  for (const address of ['127.0.62.1', '127.0.62.2', '127.0.62.3']) begun(throttle.begin(address, 'device-uuid')).end();
  assert.deepEqual(throttle.begin('127.0.62.4', 'device-uuid'), { retryAfterSeconds: 60 }, 'a fresh address is refused for that name');
  begun(throttle.begin('127.0.62.4', 'another-uuid')).end();
  now += 60_001;
  begun(throttle.begin('127.0.62.4', 'device-uuid')).end();
});

test('without nameMaxFailures (user logins) no name is refused for the failures of other addresses', () => {
  const throttle = createLoginThrottle({ freeFailures: 5, maxFailures: 5, windowSeconds: 60, delayStepMs: 0 }, () => 1_000_000);
  for (let i = 1; i <= 20; i++) begun(throttle.begin(`127.0.63.${i}`, 'admin')).end();
  begun(throttle.begin('127.0.63.100', 'admin')).end();
});

test('what the throttle holds is bounded: at most maxClients keys per kind, the oldest forgotten first', () => {
  const throttle = createLoginThrottle({ freeFailures: 0, maxFailures: 1, windowSeconds: 3600, delayStepMs: 0, nameMaxFailures: 1, maxClients: 100 }, () => 1_000_000);
  begun(throttle.begin('127.0.64.1', 'first')).end();
  assert.ok('retryAfterSeconds' in throttle.begin('127.0.64.1', 'first'));
  for (let i = 0; i < 100; i++) begun(throttle.begin(`127.0.65.${i}`, `name-${i}`)).end();
  begun(throttle.begin('127.0.64.1', 'first')).end();
});

async function withGateway(login: Record<string, number>, run: (gw: TestGateway) => Promise<void>): Promise<void> {
  const gw = await startTestGateway({ overrides: { auth: { login: { freeFailures: 3, maxFailures: 10, windowSeconds: 900, delayStepMs: 1, ...login } } } });
  try {
    await run(gw);
  } finally {
    await gw.cleanup();
  }
}

const statuses = (responses: Response[]) => {
  const counts: Record<number, number> = {};
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
};

test('60 parallel wrong passwords for one name: at most maxFailures are checked, the rest get 429', async () => {
  // Concurrency caps raised out of the way: the reservation alone must hold the cap.
  await withGateway({ maxConcurrentPerName: 100, maxConcurrentPerAddress: 100 }, async (gw) => {
    const responses = await Promise.all(Array.from({ length: 60 }, () => gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: 'guess-guess' } })));
    const counts = statuses(responses);
    assert.ok((counts[401] ?? 0) <= 10, `at most 10 passwords checked: ${JSON.stringify(counts)}`);
    assert.equal((counts[401] ?? 0) + (counts[429] ?? 0), 60, JSON.stringify(counts));
    const right = await gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: 'admin-test-password-1' } });
    assert.equal(right.status, 429, 'the name stays refused once the cap is reached');
  });
});

test('300 parallel wrong passwords across names from one address: at most the address ceiling are checked', async () => {
  await withGateway({ maxFailures: 10, addressMaxFailures: 100, maxConcurrentPerName: 100, maxConcurrentPerAddress: 1000 }, async (gw) => {
    const responses = await Promise.all(Array.from({ length: 300 }, (_, i) => gw.request('POST', '/api/auth/login', { body: { username: `name-${i % 60}`, password: 'guess-guess' } })));
    const counts = statuses(responses);
    assert.ok((counts[401] ?? 0) <= 100, `at most 100 passwords checked: ${JSON.stringify(counts)}`);
    assert.equal((counts[401] ?? 0) + (counts[429] ?? 0), 300, JSON.stringify(counts));
  });
});

test('with the default concurrency caps, a burst at one name runs at most two attempts at once', async () => {
  await withGateway({ maxFailures: 1000, freeFailures: 1000 }, async (gw) => {
    const responses = await Promise.all(Array.from({ length: 30 }, () => gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: 'guess-guess' } })));
    const counts = statuses(responses);
    assert.ok((counts[429] ?? 0) > 0 && (counts[401] ?? 0) >= 2, `some attempts waited their turn: ${JSON.stringify(counts)}`);
    assert.ok(responses.filter((r) => r.status === 429).every((r) => r.headers.get('retry-after') === '1'));
  });
});

test('a name throttled in lower case is throttled in upper case too (sign-in matches names case-insensitively)', async () => {
  await withGateway({ maxFailures: 5 }, async (gw) => {
    const admin = await gw.login();
    assert.equal((await gw.request('POST', '/api/users', { token: admin, body: { username: 'victim3', password: 'victim3-password', permissions: [] } })).status, 201);
    for (let i = 0; i < 5; i++) assert.equal((await gw.request('POST', '/api/auth/login', { body: { username: 'victim3', password: 'guess-guess' } })).status, 401);
    const upper = await gw.request('POST', '/api/auth/login', { body: { username: 'VICTIM3', password: 'victim3-password' } });
    assert.equal(upper.status, 429, 'the right password under another case is refused while the name is throttled');
  });
});
