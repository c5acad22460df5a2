import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import type { AuthenticatedUser, PluginAuth } from '../../../core/plugin-api.js';
import { createClientAuth } from '../../../plugins/soap-mps/client-auth.js';

const from = (remoteAddress: string, authorization?: string) => ({ socket: { remoteAddress }, headers: authorization ? { authorization } : {} }) as unknown as IncomingMessage;
const basic = (user: string, password: string) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');

function fakeAuth(users: Record<string, { password: string; permissions: string[] }>): PluginAuth & { checks: number } {
  const auth = {
    checks: 0,
    async verifyPassword(username: string, password: string): Promise<AuthenticatedUser | null> {
      auth.checks++;
      const user = users[username];
      return user && user.password === password ? { username, permissions: user.permissions } : null;
    },
    async verifyToken() {
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
    assert.deepEqual(await auth.authorize(from('10.1.2.3')), { ok: true, caller: 'address:10.1.2.3' });
    assert.deepEqual(await auth.authorize(from('::ffff:10.1.200.1')), { ok: true, caller: 'address:10.1.200.1' });
    assert.deepEqual(await auth.authorize(from('::1')), { ok: true, caller: 'address:::1' });
    assert.deepEqual(await auth.authorize(from('2001:db8:1::5')), { ok: true, caller: 'address:2001:db8:1::5' });
    for (const refused of ['127.0.0.1', '10.2.0.1', '::ffff:127.0.0.1', 'fe80::1', '']) {
      assert.deepEqual(await auth.authorize(from(refused)), { ok: false, status: 401 }, refused);
    }
  });

  test('an invalid allowedClients entry is refused at start', () => {
    assert.throws(() => createClientAuth(fakeAuth({}), { mode: 'none', allowedClients: ['10.0.0.0/33'] }), /10\.0\.0\.0\/33/);
    assert.throws(() => createClientAuth(fakeAuth({}), { mode: 'none', allowedClients: ['example.com'] }), /example\.com/);
  });

  test('Basic mode needs mps:read, remembers a good check briefly and refuses an address after 10 failures', async () => {
    let t = 1_000_000;
    const users = { reader: { password: 'pw', permissions: ['mps:read'] }, other: { password: 'pw', permissions: ['devices:read'] } };
    const plugin = fakeAuth(users);
    const auth = createClientAuth(plugin, { mode: 'basic', allowedClients: [], now: () => t });
    assert.deepEqual(await auth.authorize(from('10.0.0.1', basic('reader', 'pw'))), { ok: true, caller: 'reader' });
    assert.deepEqual(await auth.authorize(from('10.0.0.1', basic('reader', 'pw'))), { ok: true, caller: 'reader' });
    assert.equal(plugin.checks, 1, 'the second call used the remembered check');
    t += 31_000;
    await auth.authorize(from('10.0.0.1', basic('reader', 'pw')));
    assert.equal(plugin.checks, 2, 'remembered for 30 s only');
    assert.deepEqual(await auth.authorize(from('10.0.0.1', basic('other', 'pw'))), { ok: false, status: 401 });
    assert.deepEqual(await auth.authorize(from('10.0.0.1')), { ok: false, status: 401 });

    for (let i = 0; i < 10; i++) assert.equal((await auth.authorize(from('10.0.0.9', basic('reader', `guess-${i}`)))).ok, false);
    const refused = await auth.authorize(from('10.0.0.9', basic('reader', 'pw')));
    assert.equal(refused.ok === false && refused.status, 429);
    assert.deepEqual(await auth.authorize(from('10.0.0.1', basic('reader', 'pw'))), { ok: true, caller: 'reader' }, 'other addresses are unaffected');
    t += 15 * 60_000 + 1000;
    assert.deepEqual(await auth.authorize(from('10.0.0.9', basic('reader', 'pw'))), { ok: true, caller: 'reader' }, 'the refusal ends with the window');
  });
});
