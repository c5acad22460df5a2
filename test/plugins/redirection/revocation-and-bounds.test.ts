/**
 * Sessions that must not outlive their user, and what one user may hold: a session ends at once when
 * its sign-in is revoked (logout, password change, deletion), tickets are bound to the user's
 * identity rather than its name, and tickets and sessions are bounded per user so that one user
 * cannot take the slots everyone else needs.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleetGateway, type FleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';
import { codeOf, redirectionKit, type Problem } from './redirection-kit.js';
import { until } from '../../helpers/poll.js';

let kit: FleetGateway;
const k = redirectionKit(() => kit);
const PASSWORD = 'user-password-1';

before(async () => {
  kit = await startFleetGateway({
    fleet: { count: 4, base: '127.63.8.1', provisioningModes: [1], seed: 'revocation-test' },
    range: '127.63.8.1-4',
    plugins: ['rest-api', 'redirection'],
    // The periodic user check is far away: only the revocation itself can end a session in time.
    pluginConfig: { redirection: { options: { userCheckMs: 60_000, maxTicketsPerUser: 3, maxSessionsPerUser: 2 } } },
  });
});

after(async () => {
  await kit?.cleanup();
});

const status = (err: unknown) => (err as { status?: number }).status;

/** Milliseconds until the WebSocket closed, with its code, or null when it stayed open for `waitMs`. */
function closedWithin(ws: Awaited<ReturnType<typeof k.relay>>, waitMs: number): Promise<{ ms: number; code: number } | null> {
  const started = performance.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), waitMs);
    ws.once('close', (code) => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - started, code });
    });
  });
}

test('a session ends at once when its user signs out, or its password is changed', async () => {
  const sim = kit.fleet.devices[0]!;
  for (const revocation of ['logout', 'password'] as const) {
    const username = `viewer-${revocation}`;
    const token = await kit.gw.userWith(['remote:connect'], username);
    const ws = await k.relay((await k.ticket(sim, 'sol', token)).url);
    const closing = closedWithin(ws, 5_000);
    const res =
      revocation === 'logout'
        ? await kit.gw.request('POST', '/api/auth/logout', { token })
        : await kit.gw.request('PUT', `/api/users/${username}`, { token: kit.token, body: { password: 'another-password-2' } });
    assert.ok(res.status < 300, `${revocation}: ${res.status}`);
    const closed = await closing;
    assert.ok(closed !== null && closed.ms < 1_000, `${revocation}: the session was still open ${closed ? Math.round(closed.ms) + ' ms' : 'after 5 s'} later`);
    assert.equal(closed.code, 4007, 'close code: the sign-in was revoked');
    await until('slot free', () => !sim.redirection.open.has('sol'), 5_000);
  }
});

test("signing out ends that sign-in's sessions and tickets, not those of the user's other sign-in", async () => {
  const [first, second] = [kit.fleet.devices[0]!, kit.fleet.devices[1]!];
  await kit.gw.userWith(['remote:connect'], 'viewer-two-tabs');
  const tabA = await kit.gw.login('viewer-two-tabs', PASSWORD);
  const tabB = await kit.gw.login('viewer-two-tabs', PASSWORD);
  const ended = await k.relay((await k.ticket(first, 'sol', tabA)).url);
  const unusedOfA = await k.ticket(second, 'kvm', tabA);
  const kept = await k.relay((await k.ticket(second, 'sol', tabB)).url);
  const endedClosing = closedWithin(ended, 3_000);
  const keptClosing = closedWithin(kept, 1_500);
  assert.equal((await kit.gw.request('POST', '/api/auth/logout', { token: tabA })).status, 204);
  assert.notEqual(await endedClosing, null, 'the session of the token signed out ends');
  assert.equal(await keptClosing, null, 'the session of the other sign-in stays open');
  await assert.rejects(k.relay(unusedOfA.url), (err) => status(err) === 401, "the signed-out token's unused ticket is gone");
  kept.close();
  await until('slots free', () => first.redirection.open.size === 0 && second.redirection.open.size === 0, 5_000);
});

test("a deleted user's unused ticket opens nothing, even once a new user of the same name exists", async () => {
  const sim = kit.fleet.devices[2]!;
  const token = await kit.gw.userWith(['remote:connect'], 'reused-name');
  const stale = await k.ticket(sim, 'sol', token);
  assert.equal((await kit.gw.request('DELETE', '/api/users/reused-name', { token: kit.token })).status, 204);
  const created = await kit.gw.request('POST', '/api/users', { token: kit.token, body: { username: 'reused-name', password: PASSWORD, permissions: ['remote:connect'] } });
  assert.equal(created.status, 201);
  const starts = sim.redirection.counters.starts;
  await assert.rejects(k.relay(stale.url), (err) => status(err) === 401 || status(err) === 403, 'the old ticket is refused');
  assert.equal(sim.redirection.counters.starts, starts, 'nothing reached the device');
  assert.equal(sim.redirection.open.size, 0);
});

test("one user's unused tickets count against its own bound only: others still get theirs", async () => {
  const sim = kit.fleet.devices[3]!;
  const greedy = await kit.gw.userWith(['remote:connect'], 'greedy-tickets');
  for (let i = 0; i < 3; i++) await k.ticket(sim, 'kvm', greedy);
  const refused = await k.api('POST', `/api/redirection/${k.idOf(sim)}/sessions`, { mode: 'kvm' }, greedy);
  assert.equal(refused.status, 429);
  assert.equal(codeOf((await refused.json()) as Problem), 'GW_ERR_REDIRECTION_USER_LIMIT');
  assert.ok(Number(refused.headers.get('retry-after')) >= 1, 'says when to retry');
  const ws = await k.relay((await k.ticket(sim, 'kvm')).url);
  ws.close();
  await until('slot free', () => sim.redirection.open.size === 0, 5_000);
});

test('one user cannot hold more than its bound of open sessions; another user still opens one', async () => {
  const [a, b, c] = [kit.fleet.devices[1]!, kit.fleet.devices[2]!, kit.fleet.devices[3]!];
  const busy = await kit.gw.userWith(['remote:connect'], 'busy-sessions');
  const late = await k.ticket(c, 'sol', busy);
  const open = [await k.relay((await k.ticket(a, 'sol', busy)).url), await k.relay((await k.ticket(b, 'sol', busy)).url)];
  const refused = await k.api('POST', `/api/redirection/${k.idOf(c)}/sessions`, { mode: 'sol' }, busy);
  assert.equal(refused.status, 429, 'a third session is refused at the ticket');
  assert.equal(codeOf((await refused.json()) as Problem), 'GW_ERR_REDIRECTION_USER_LIMIT');
  await assert.rejects(k.relay(late.url), (err) => status(err) === 429, 'and at the upgrade, for a ticket issued before the two opened');
  assert.equal(c.redirection.open.size, 0, 'nothing reached the device');
  const admin = await k.relay((await k.ticket(c, 'sol')).url);
  for (const ws of [...open, admin]) ws.close();
  await until('slots free', () => a.redirection.open.size + b.redirection.open.size + c.redirection.open.size === 0, 5_000);
});
