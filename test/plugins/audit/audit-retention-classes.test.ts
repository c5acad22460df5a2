/**
 * Nobody without an account can erase what operators did: failed and refused sign-ins are kept in a
 * class of their own, aggregated per client address, door and window (one record with counts), with
 * a bound of their own, and retention never prunes operator records to make room for them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { requestFrom } from '../../helpers/request-from.js';
import { allRecords, readAudit } from './audit-kit.js';

describe('audit retention classes', () => {
  let gw: TestGateway;
  let admin: string;

  before(async () => {
    gw = await startTestGateway({
      plugins: ['audit'],
      overrides: {
        // One password check per address, then refusals: the flood is cheap to send, as an attacker's is.
        auth: { login: { freeFailures: 0, maxFailures: 1, windowSeconds: 900, delayStepMs: 0, addressMaxFailures: 1, maxConcurrentPerName: 100, maxConcurrentPerAddress: 100 } },
        plugins: { audit: { options: { retention: { maxRecords: 10 }, signInFailures: { maxRecords: 10, windowSeconds: 60 } } } },
      },
    });
    admin = await gw.login();
  });
  after(() => gw.cleanup());

  const fail = (from: string, username: string) => requestFrom(from, `${gw.url}/api/auth/login`, { method: 'POST', body: { username, password: 'wrong-password' } });

  test("an operator's action outlives thousands of refused sign-ins from many addresses", async () => {
    assert.equal((await gw.request('POST', '/api/users', { token: admin, body: { username: 'kept-user', password: 'user-password-1', permissions: [] } })).status, 201);
    for (let round = 0; round < 25; round++) {
      await Promise.all(Array.from({ length: 40 }, (_, i) => fail(`127.0.70.${1 + (i % 20)}`, `guess-${i % 3}`)));
    }
    const records = await allRecords(gw, admin);
    assert.ok(records.some((r) => r.action === 'user.create' && r.target === 'kept-user'), "the admin's user.create is still there");
    const failures = records.filter((r) => r.class === 'sign-in-failures');
    assert.ok(failures.length >= 1 && failures.length <= 10 + 100, `the failures class keeps its own bound (${failures.length})`);
    const attempts = failures.reduce((sum, r) => sum + (r.detail.attempts as number), 0);
    assert.ok(attempts > 0 && attempts <= 1000, `${attempts} attempts counted in ${failures.length} records`);
    assert.ok(records.filter((r) => r.class === 'operator').length >= 2, 'the operator records are kept');
  });

  test('repeated failures from one address within a window are one record with counts and the names tried', async () => {
    for (let i = 0; i < 30; i++) await fail('127.0.90.1', i % 2 ? 'alice' : 'bob');
    const { records } = await readAudit(gw, admin, { class: 'sign-in-failures', limit: 1000 });
    const mine = records.filter((r) => r.address === '127.0.90.1');
    assert.equal(mine.length, 1, JSON.stringify(mine));
    const [record] = mine;
    assert.equal(record!.action, 'auth.sign-in');
    assert.equal(record!.outcome, 'failure');
    assert.deepEqual([record!.detail.attempts, record!.detail.failures, record!.detail.refused], [30, 1, 29]);
    assert.equal(record!.detail.door, 'rest');
    assert.deepEqual([...(record!.detail.names as string[])].sort(), ['alice', 'bob']);
    const byName = await readAudit(gw, admin, { user: 'alice', class: 'sign-in-failures' });
    assert.ok(byName.records.some((r) => r.address === '127.0.90.1'), 'found by any name it holds');
  });

  test('a successful sign-in is an operator record, one per sign-in', async () => {
    await gw.login();
    const { records } = await readAudit(gw, admin, { action: 'auth.sign-in', outcome: 'success', limit: 5 });
    assert.ok(records.length >= 1);
    assert.ok(records.every((r) => r.class === 'operator'));
  });
});
