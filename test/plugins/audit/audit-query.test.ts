/**
 * `GET /api/audit`: its permission, its filters (user, action, target, outcome, time range) and
 * paging with X-Total-Count; retention by count at start; bad filters refused with 400.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { readAudit } from './audit-kit.js';

describe('the audit route', () => {
  let gw: TestGateway;
  let admin: string;
  let between: string;

  before(async () => {
    gw = await startTestGateway({ plugins: ['audit'], overrides: { plugins: { audit: { enable: true, options: { retention: { maxRecords: 10 } } } } } });
    admin = await gw.login();
    for (let i = 0; i < 3; i++) await gw.request('POST', '/api/auth/login', { body: { username: `ghost${i}`, password: 'wrong-password-1' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    between = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const name of ['alice', 'bob']) {
      const res = await gw.request('POST', '/api/users', { token: admin, body: { username: name, password: 'long-password-1', permissions: [] } });
      assert.equal(res.status, 201);
    }
  });
  after(() => gw.cleanup());

  it('needs audit:read', async () => {
    const nobody = await gw.userWith([]);
    assert.equal((await readAudit(gw, nobody)).status, 403);
    assert.equal((await gw.request('GET', '/api/audit')).status, 401);
    const auditor = await gw.userWith(['audit:read']);
    assert.equal((await readAudit(gw, auditor)).status, 200);
    const routes = (await (await gw.request('GET', '/api/routes', { token: auditor })).json()) as Array<{ path: string }> | undefined;
    if (Array.isArray(routes)) assert.ok(routes.some((r) => r.path === '/audit'));
  });

  it('filters by user, action (exact or prefix), target, outcome and time, with the total of matches', async () => {
    const failures = await readAudit(gw, admin, { action: 'auth.sign-in', outcome: 'failure' });
    assert.equal(failures.total, 1, 'one address, one window: one aggregated record');
    assert.deepEqual((failures.records[0]!.detail.names as string[]).sort(), ['ghost0', 'ghost1', 'ghost2']);
    const ghost = await readAudit(gw, admin, { user: 'ghost1' });
    assert.deepEqual(ghost.records.map((r) => [r.action, r.outcome, r.class]), [['auth.sign-in', 'failure', 'sign-in-failures']]);
    const users = await readAudit(gw, admin, { action: 'user.*', from: between });
    assert.deepEqual(users.records.map((r) => r.target).filter((t) => t === 'alice' || t === 'bob'), ['bob', 'alice']);
    assert.ok(users.records.every((r) => r.action === 'user.create'));
    assert.deepEqual((await readAudit(gw, admin, { target: 'alice' })).records.map((r) => r.action), ['user.create']);
    const later = await readAudit(gw, admin, { from: between, action: 'auth.sign-in', outcome: 'failure' });
    assert.equal(later.total, 0, 'the failed sign-ins came before');
    const earlier = await readAudit(gw, admin, { to: between });
    assert.ok(earlier.records.every((r) => r.at <= between) && earlier.records.some((r) => r.user === 'ghost0'));
    assert.ok(!earlier.records.some((r) => r.target === 'alice'));
  });

  it('pages newest first with X-Total-Count', async () => {
    const all = await readAudit(gw, admin, { limit: 1000 });
    assert.ok(all.total >= 6);
    const first = await readAudit(gw, admin, { limit: 2 });
    const second = await readAudit(gw, admin, { limit: 2, offset: 2 });
    assert.equal(first.total, all.total);
    assert.deepEqual([...first.records, ...second.records].map((r) => r.id), all.records.slice(0, 4).map((r) => r.id));
    assert.ok(first.records[0]!.at >= first.records[1]!.at);
  });

  it('refuses bad filters with 400', async () => {
    assert.equal((await readAudit(gw, admin, { from: 'yesterday' })).status, 400);
    assert.equal((await readAudit(gw, admin, { limit: 1001 })).status, 400);
    assert.equal((await readAudit(gw, admin, { outcome: 'maybe' })).status, 400);
    assert.equal((await readAudit(gw, admin, { color: 'red' })).status, 400);
  });

  it('keeps at most maxRecords operator records after a restart, the newest', async () => {
    for (let i = 0; i < 6; i++) await gw.login();
    const grown = await readAudit(gw, admin, { limit: 1000, class: 'operator' });
    assert.ok(grown.total > 10, 'pruning by count waits for some slack');
    await gw.stop();
    const again = await startTestGateway({ plugins: ['audit'], dataDir: gw.dataDir, masterKey: gw.masterKey, overrides: { plugins: { audit: { enable: true, options: { retention: { maxRecords: 10 } } } } } });
    try {
      const token = await again.login();
      const kept = await readAudit(again, token, { limit: 1000, class: 'operator' });
      // Pruned at start to the newest ten; the sign-in just made came after.
      assert.equal(kept.total, 11);
      assert.equal(kept.records[0]!.action, 'auth.sign-in');
      assert.deepEqual(kept.records.slice(1).map((r) => r.id), grown.records.slice(0, 10).map((r) => r.id));
    } finally {
      await again.stop();
    }
  });
});
