import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_PASSWORD, startTestGateway } from '../helpers/gateway-harness.js';
import { createLoginThrottle, type LoginThrottle } from '../../core/auth/login-throttle.js';

/** One attempt that fails: the throttle's verdict for it. */
function fail(throttle: LoginThrottle, client: string, name: string) {
  const attempt = throttle.begin(client, name);
  if (!('delayMs' in attempt)) return attempt;
  attempt.end();
  return { delayMs: attempt.delayMs };
}

/** One attempt that succeeds: the throttle's verdict for it. */
function succeed(throttle: LoginThrottle, client: string, name: string) {
  const attempt = throttle.begin(client, name);
  if (!('delayMs' in attempt)) return attempt;
  attempt.succeeded();
  attempt.end();
  return { delayMs: attempt.delayMs };
}

test('the login throttle adds a delay step per failure past the free ones, then refuses until the window moves on', () => {
  let now = 1_000_000;
  const throttle = createLoginThrottle({ freeFailures: 2, maxFailures: 5, windowSeconds: 60, delayStepMs: 250 }, () => now);
  const delays: unknown[] = [];
  for (let i = 0; i < 5; i++) {
    delays.push(fail(throttle, '127.0.60.1', 'olga'));
    now += 1000;
  }
  assert.deepEqual(delays, [{ delayMs: 0 }, { delayMs: 0 }, { delayMs: 250 }, { delayMs: 500 }, { delayMs: 750 }]);
  assert.deepEqual(throttle.begin('127.0.60.1', 'olga'), { retryAfterSeconds: 55 });
  assert.deepEqual(succeed(throttle, '127.0.60.2', 'olga'), { delayMs: 0 }, 'other addresses are unaffected');
  assert.deepEqual(succeed(throttle, '127.0.60.1', 'igor'), { delayMs: 0 }, 'other names behind the same address are unaffected');
  now += 55_500;
  assert.deepEqual(succeed(throttle, '127.0.60.1', 'olga'), { delayMs: 750 }, 'the oldest failure left the window');
  assert.deepEqual(succeed(throttle, '127.0.60.1', 'olga'), { delayMs: 0 }, 'a success cleared the name');
});

test('the login throttle refuses every name from an address past its looser per-address ceiling', () => {
  let now = 1_000_000;
  const throttle = createLoginThrottle({ freeFailures: 2, maxFailures: 5, windowSeconds: 60, delayStepMs: 0, addressMaxFailures: 12 }, () => now);
  for (let i = 0; i < 12; i++) {
    assert.ok('delayMs' in fail(throttle, '127.0.60.1', `made-up-${i % 3}`), `failure ${i + 1} is not refused yet`);
    now += 1000;
  }
  assert.deepEqual(throttle.begin('127.0.60.1', 'admin'), { retryAfterSeconds: 48 }, 'spraying many names from one address is stopped');
  assert.deepEqual(succeed(throttle, '127.0.60.3', 'admin'), { delayMs: 0 });
  assert.ok('retryAfterSeconds' in throttle.begin('127.0.60.1', 'admin'), 'still refused');
  assert.deepEqual(succeed(createLoginThrottle({ freeFailures: 0, maxFailures: 1, windowSeconds: 60, delayStepMs: 0 }), 'x', 'y'), { delayMs: 0 });
});

test('ten failed logins for a made-up user do not lock out another user behind the same address', async () => {
  const gw = await startTestGateway({ overrides: { auth: { login: { freeFailures: 3, maxFailures: 10, windowSeconds: 900, delayStepMs: 1 } } } });
  try {
    for (let i = 0; i < 10; i++) {
      assert.equal((await gw.request('POST', '/api/auth/login', { body: { username: 'no-such-user', password: 'guess-guess' } })).status, 401);
    }
    assert.equal((await gw.request('POST', '/api/auth/login', { body: { username: 'no-such-user', password: 'guess-guess' } })).status, 429);
    const admin = await gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    assert.equal(admin.status, 200, 'the real user behind the same address still signs in');
  } finally {
    await gw.cleanup();
  }
});

test('login returns an expiring token and the user; a wrong password or an unknown user get the same 401', async () => {
  const gw = await startTestGateway();
  try {
    let res = await gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { token: string; expiresAt: string; user: { username: string; permissions: string[] } };
    assert.equal(body.user.username, 'admin');
    assert.deepEqual(body.user.permissions, ['users:manage'], 'no plugin is enabled, so only the kernel permission exists');
    assert.ok(Date.parse(body.expiresAt) > Date.now());
    res = await gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: 'wrong-password' } });
    const wrongPassword = await res.json();
    assert.equal(res.status, 401);
    res = await gw.request('POST', '/api/auth/login', { body: { username: 'nobody', password: 'wrong-password' } });
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), wrongPassword);
    res = await gw.request('POST', '/api/auth/login', { body: { username: 'admin' } });
    assert.equal(res.status, 400);
  } finally {
    await gw.cleanup();
  }
});

test('a token stops working when it expires and after logout', async () => {
  const gw = await startTestGateway({ overrides: { auth: { tokenTtlSeconds: 1 } } });
  try {
    const token = await gw.login();
    assert.equal((await gw.request('GET', '/api/auth/me', { token })).status, 200);
    await sleep(1200);
    const res = await gw.request('GET', '/api/auth/me', { token });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    const second = await gw.login();
    assert.equal((await gw.request('POST', '/api/auth/logout', { token: second })).status, 204);
    assert.equal((await gw.request('GET', '/api/auth/me', { token: second })).status, 401);
  } finally {
    await gw.cleanup();
  }
});

test('repeated failed logins from one address are slowed down, then refused with 429', async () => {
  const gw = await startTestGateway({ overrides: { auth: { login: { freeFailures: 2, maxFailures: 5, windowSeconds: 60, delayStepMs: 400 } } } });
  try {
    const attempt = () => gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: 'guess-guess' } });
    const durations: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      assert.equal((await attempt()).status, 401);
      durations.push(performance.now() - started);
    }
    // The fifth failure waits 3 × 400 ms; scrypt's own time varies by far less than that. Against the
    // faster of the two free failures: the first also pays for warming up (680 ms on a loaded machine).
    assert.ok(durations[4]! - Math.min(durations[0]!, durations[1]!) >= 800, `later failures are delayed (${durations.map(Math.round).join(', ')} ms)`);
    const refused = await attempt();
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    const correct = await gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    assert.equal(correct.status, 429, 'even the right password is refused while the address is blocked');
  } finally {
    await gw.cleanup();
  }
});

test('users are managed at /api/users; their permissions decide access; the last manager cannot be removed', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'] });
  try {
    const admin = await gw.login();
    let res = await gw.request('POST', '/api/users', { token: admin, body: { username: 'olga', password: 'olga-password', permissions: ['devices:read'] } });
    assert.equal(res.status, 201);
    const created = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(created.permissions, ['devices:read']);
    assert.equal(JSON.stringify(created).includes('olga-password'), false);
    assert.equal('passwordHash' in created, false);
    res = await gw.request('POST', '/api/users', { token: admin, body: { username: 'olga', password: 'olga-password', permissions: [] } });
    assert.equal(res.status, 409);
    res = await gw.request('POST', '/api/users', { token: admin, body: { username: 'x', password: 'long-enough', permissions: ['root:everything'] } });
    assert.equal(res.status, 400);
    const olga = await gw.login('olga', 'olga-password');
    assert.equal((await gw.request('GET', '/api/users', { token: olga })).status, 403);
    res = await gw.request('PUT', '/api/users/olga', { token: admin, body: { permissions: ['users:manage'] } });
    assert.equal(res.status, 200);
    assert.equal((await gw.request('GET', '/api/users', { token: olga })).status, 200, 'a permission change applies to live tokens');
    res = await gw.request('PUT', '/api/users/olga', { token: admin, body: { password: 'new-password-1' } });
    assert.equal((await gw.request('GET', '/api/users', { token: olga })).status, 401, 'a password change revokes tokens');
    assert.equal((await gw.request('DELETE', '/api/users/olga', { token: admin })).status, 204);
    assert.equal((await gw.request('GET', '/api/users/olga', { token: admin })).status, 404);
    res = await gw.request('DELETE', '/api/users/admin', { token: admin });
    assert.equal(res.status, 409);
  } finally {
    await gw.cleanup();
  }
});

test('without AMTGW_ADMIN_PASSWORD the admin password is generated, written to an owner-only file and works', async () => {
  const { readFile, stat } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const gw = await startTestGateway({ env: { AMTGW_ADMIN_PASSWORD: '' } });
  try {
    const password = gw.gateway.generatedAdminPassword;
    assert.ok(password && password.length >= 20);
    const file = join(gw.dataDir, 'admin-password');
    assert.equal((await readFile(file, 'utf8')).trim(), password);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    await gw.login('admin', password);
  } finally {
    await gw.cleanup();
  }
});

test('the default per-address ceiling is reachable with a large per-name limit (failures kept up to the ceiling)', () => {
  let now = 1_000_000;
  const throttle = createLoginThrottle({ freeFailures: 0, maxFailures: 200, windowSeconds: 3600, delayStepMs: 0 }, () => now);
  for (let i = 0; i < 1000; i++) {
    assert.ok('delayMs' in fail(throttle, '127.0.60.4', `made-up-${i % 10}`));
    now += 1;
  }
  assert.ok('retryAfterSeconds' in throttle.begin('127.0.60.4', 'admin'), '1,000 failures from one address reach its default ceiling');
});

test('users stored before ids and sealed hashes are given an id and their hash sealed at the first start, and still sign in', async () => {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { openStore } = await import('../../core/store/level-store.js');
  const { hashPassword } = await import('../../core/auth/password-hash.js');
  const dataDir = await mkdtemp(join(tmpdir(), 'amtgw-old-users-'));
  try {
    const store = await openStore(dataDir);
    const now = new Date().toISOString();
    await store.namespace('core').namespace('users').put('veteran', { username: 'veteran', passwordHash: await hashPassword('veteran-password-1'), permissions: ['*'], createdAt: now, updatedAt: now });
    await store.close();
    const gw = await startTestGateway({ dataDir });
    try {
      const res = await gw.request('POST', '/api/auth/login', { body: { username: 'veteran', password: 'veteran-password-1' } });
      assert.equal(res.status, 200);
      const { user } = (await res.json()) as { user: { id: string } };
      assert.match(user.id, /^[0-9a-f-]{36}$/);
    } finally {
      await gw.stop();
    }
    const reopened = await openStore(dataDir);
    try {
      const stored = await reopened.namespace('core').namespace('users').get<{ id: string; passwordHash: string }>('veteran');
      assert.match(stored!.id, /^[0-9a-f-]{36}$/, 'the id is written back');
      assert.match(stored!.passwordHash, /^v1\./, 'the hash is sealed at rest');
    } finally {
      await reopened.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("a user holds at most maxTokensPerUser live tokens: a sign-in beyond revokes the oldest (announced as their sign-out)", async () => {
  const gw = await startTestGateway({ overrides: { auth: { maxTokensPerUser: 3 } } });
  try {
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++) tokens.push(await gw.login());
    const alive = await Promise.all(tokens.map(async (token) => (await gw.request('GET', '/api/auth/me', { token })).status));
    assert.deepEqual(alive, [401, 401, 200, 200, 200], 'the two oldest made room');
    await gw.stop();
    const again = await startTestGateway({ dataDir: gw.dataDir, masterKey: gw.masterKey, overrides: { auth: { maxTokensPerUser: 3 } } });
    try {
      const fresh = await again.login();
      const after = await Promise.all([...tokens.slice(2), fresh].map(async (token) => (await again.request('GET', '/api/auth/me', { token })).status));
      assert.deepEqual(after, [401, 200, 200, 200], 'the bound holds across a restart: the tokens kept were counted');
    } finally {
      await again.stop();
    }
  } finally {
    await gw.cleanup();
  }
});
