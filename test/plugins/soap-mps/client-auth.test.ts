import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import type { AuthenticatedUser, PluginAuth, SignInRequest, SignInResult } from '../../../core/plugin-api.js';
import { createLoginThrottle } from '../../../core/auth/login-throttle.js';
import { createClientAuth } from '../../../plugins/soap-mps/client-auth.js';

const from = (remoteAddress: string, authorization?: string) => ({ socket: { remoteAddress }, headers: authorization ? { authorization } : {} }) as unknown as IncomingMessage;
const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

/**
 * The kernel's sign-in as this unit sees it: checks counted, throttling left to the kernel (tested
 * end to end in sign-in-throttle.test.ts).
 */
function fakeAuth(users: Record<string, { password: string; permissions: string[] }>): PluginAuth & { checks: number; doors: string[] } {
  const auth = {
    checks: 0,
    doors: [] as string[],
    async signIn({ username, password, door }: SignInRequest): Promise<SignInResult> {
      auth.checks++;
      auth.doors.push(door);
      const user = users[username];
      return user && user.password === password ? { outcome: 'success', user: { id: `id-${username}`, username, permissions: user.permissions } } : { outcome: 'failure' };
    },
    async verifyPassword(): Promise<AuthenticatedUser | null> {
      throw new Error('the SOAP door signs in through signIn');
    },
    async verifyToken() {
      return null;
    },
    attemptThrottle: createLoginThrottle,
    tokenId: (token: string) => token,
    async userById() {
      return null;
    },
    allPermissions: () => ['mps:read'],
    async currentUser() {
      return null;
    },
  };
  return auth;
}

describe('SOAP caller authentication', () => {
  test('client-address mode admits the allowed networks only, IPv4-mapped addresses included', async () => {
    const auth = createClientAuth(fakeAuth({}), { mode: 'none', allowedClients: ['10.1.0.0/16', '::1', '2001:db8::/32'] });
    const byAddress = (address: string) => ({ ok: true, caller: { key: `address:${address}`, name: `address:${address}`, manageAll: false } });
    assert.deepEqual(await auth.authorize(from('10.1.2.3')), byAddress('10.1.2.3'));
    assert.deepEqual(await auth.authorize(from('::ffff:10.1.200.1')), byAddress('10.1.200.1'));
    assert.deepEqual(await auth.authorize(from('::1')), byAddress('::1'));
    assert.deepEqual(await auth.authorize(from('2001:db8:1::5')), byAddress('2001:db8:1::5'));
    for (const refused of ['127.0.0.1', '10.2.0.1', '::ffff:127.0.0.1', 'fe80::1', '']) {
      assert.deepEqual(await auth.authorize(from(refused)), { ok: false, status: 401 }, refused);
    }
  });

  test('an invalid allowedClients entry is refused at start', () => {
    assert.throws(() => createClientAuth(fakeAuth({}), { mode: 'none', allowedClients: ['10.0.0.0/33'] }), /10\.0\.0\.0\/33/);
    assert.throws(() => createClientAuth(fakeAuth({}), { mode: 'none', allowedClients: ['example.com'] }), /example\.com/);
  });

  test('Basic mode signs in through the kernel as door soap, needs mps:read, remembers a good check briefly and forgets it when revoked', async () => {
    let t = 1_000_000;
    const users = { reader: { password: 'pw', permissions: ['mps:read'] }, other: { password: 'pw', permissions: ['devices:read'] } };
    const reader = { ok: true, caller: { key: 'user:id-reader', name: 'reader', manageAll: false } };
    const plugin = fakeAuth(users);
    const auth = createClientAuth(plugin, { mode: 'basic', allowedClients: [], now: () => t });
    assert.deepEqual(await auth.authorize(from('10.0.0.1', basic('reader', 'pw'))), reader);
    assert.deepEqual(await auth.authorize(from('10.0.0.1', basic('reader', 'pw'))), reader);
    assert.equal(plugin.checks, 1, 'the second call used the remembered check');
    assert.deepEqual(plugin.doors, ['soap']);
    t += 31_000;
    await auth.authorize(from('10.0.0.1', basic('reader', 'pw')));
    assert.equal(plugin.checks, 2, 'remembered for 30 s only');
    auth.revoked({ user: 'admin', address: '127.0.0.1', userId: 'id-reader', username: 'reader', reason: 'signed-out', tokenIds: ['t'] });
    await auth.authorize(from('10.0.0.1', basic('reader', 'pw')));
    assert.equal(plugin.checks, 2, 'a sign-out elsewhere is no Basic caller\'s');
    auth.revoked({ user: 'admin', address: '127.0.0.1', userId: 'id-reader', username: 'reader', reason: 'password-changed', tokenIds: [] });
    await auth.authorize(from('10.0.0.1', basic('reader', 'pw')));
    assert.equal(plugin.checks, 3, 'a password change is checked again at once');
    assert.deepEqual(await auth.authorize(from('10.0.0.1', basic('other', 'pw'))), { ok: false, status: 401 });
    assert.deepEqual(await auth.authorize(from('10.0.0.1')), { ok: false, status: 401 });
    assert.deepEqual(await auth.authorize(from('10.0.0.1', 'Basic !!!')), { ok: false, status: 401 });
    assert.equal(plugin.checks, 4, 'no header or a malformed one is no sign-in attempt');
  });

  test('parallel requests with one header share one sign-in (a client\'s burst with its right password is no throttled burst)', async () => {
    const plugin = fakeAuth({ reader: { password: 'pw', permissions: ['mps:read'] } });
    const slow = plugin.signIn.bind(plugin);
    plugin.signIn = async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return slow(request);
    };
    const auth = createClientAuth(plugin, { mode: 'basic', allowedClients: [] });
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => auth.authorize(from('10.0.0.1', basic('reader', 'pw')))));
    assert.ok(outcomes.every((o) => o.ok));
    assert.equal(plugin.checks, 1);
    await Promise.all([auth.authorize(from('10.0.0.2', basic('reader', 'wrong'))), auth.authorize(from('10.0.0.3', basic('reader', 'wrong')))]);
    assert.equal(plugin.checks, 3, 'a check under way from one address answers no other address');
  });
});
