/**
 * Who may open a session and for how long: tickets reused, expired or forged are refused; a page of
 * another origin is refused; a session ends when its user is deleted or loses remote:connect, and
 * when the device closes it (the viewer is told why); with a wrong credential stored first, repeated
 * sessions never come near the device's lockout.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { FLEET_PASSWORD, startFleetGateway, type FleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';
import { createCredential } from '../../helpers/scan-helpers.js';
import { redirectionKit } from './redirection-kit.js';
import { until } from '../../helpers/poll.js';

const TICKET_TTL_SECONDS = 2;
let kit: FleetGateway;
const k = redirectionKit(() => kit);

before(async () => {
  kit = await startFleetGateway({
    fleet: { count: 4, base: '127.63.1.1', provisioningModes: [1], seed: 'ticket-test', kvmIdleMs: 1_500 },
    range: '127.63.1.1-4',
    plugins: ['rest-api', 'redirection'],
    // Four failed logins an operation (see the lockout test below), and one worker thread: a device's
    // Digest nonces are cached per thread, so every task finds the nonce of the scan's read.
    pluginConfig: { redirection: { options: { ticketTtlSeconds: TICKET_TTL_SECONDS, userCheckMs: 100, origins: ['https://console.example'], device: { credentialAttempts: 4 } } } },
    siteConfig: { workers: { threads: 1 } },
  });
});

after(async () => {
  await kit?.cleanup();
});

const status = (err: unknown) => (err as { status?: number }).status;

test('a ticket works once: reused, expired or forged it is refused with 401 and holds no device slot', async () => {
  const sim = kit.fleet.devices[0]!;
  const t = await k.ticket(sim, 'sol');
  assert.match(t.url, /^\/api\/redirection\/relay\?ticket=[A-Za-z0-9_-]{43}$/);
  assert.ok(Date.parse(t.expiresAt) - Date.now() <= TICKET_TTL_SECONDS * 1000);
  const ws = await k.relay(t.url);
  ws.close();
  await until('slot free', () => !sim.redirection.open.has('sol'), 5_000);
  await assert.rejects(k.relay(t.url), (err) => status(err) === 401, 'reused');
  await assert.rejects(k.relay(t.url.replace(/ticket=.{8}/, 'ticket=AAAAAAAA')), (err) => status(err) === 401, 'forged');
  await assert.rejects(k.relay('/api/redirection/relay'), (err) => status(err) === 401, 'none');
  const late = await k.ticket(sim, 'sol');
  assert.equal(sim.redirection.open.size, 0, 'an unused ticket holds no slot');
  await new Promise((resolve) => setTimeout(resolve, TICKET_TTL_SECONDS * 1000 + 200));
  await assert.rejects(k.relay(late.url), (err) => status(err) === 401, 'expired');
  assert.equal(sim.redirection.counters.starts, 1, 'only the valid ticket reached the device');
});

test('a page of another origin cannot open the WebSocket; the gateway origin and configured ones can', async () => {
  const sim = kit.fleet.devices[0]!;
  const refused = await k.ticket(sim, 'sol');
  await assert.rejects(k.relay(refused.url, { origin: 'https://evil.example' }), (err) => status(err) === 403);
  for (const origin of [kit.gw.url, 'https://console.example']) {
    const ws = await k.relay((await k.ticket(sim, 'sol')).url, { origin });
    ws.close();
    await until('slot free', () => !sim.redirection.open.has('sol'), 5_000);
  }
});

test('a session ends when its user loses remote:connect, and when the user is deleted', async () => {
  const sim = kit.fleet.devices[1]!;
  const admin = kit.token;
  for (const change of ['revoke', 'delete'] as const) {
    const username = `viewer-${change}`;
    const token = await kit.gw.userWith(['remote:connect', 'devices:read'], username);
    const ws = await k.relay((await k.ticket(sim, 'sol', token)).url);
    const closing = k.closed(ws);
    const res =
      change === 'revoke'
        ? await kit.gw.request('PUT', `/api/users/${username}`, { token: admin, body: { permissions: ['devices:read'] } })
        : await kit.gw.request('DELETE', `/api/users/${username}`, { token: admin });
    assert.ok(res.status < 300, `${change}: ${res.status}`);
    assert.deepEqual(await closing, { code: 4004, reason: 'the user was deleted or no longer holds remote:connect' });
    await until('slot free', () => !sim.redirection.open.has('sol'), 5_000);
  }
});

test('a ticket of a user who lost remote:connect before using it is refused', async () => {
  const sim = kit.fleet.devices[1]!;
  const token = await kit.gw.userWith(['remote:connect'], 'viewer-late');
  const t = await k.ticket(sim, 'kvm', token);
  const starts = sim.redirection.counters.starts;
  await kit.gw.request('PUT', '/api/users/viewer-late', { token: kit.token, body: { permissions: [] } });
  await assert.rejects(k.relay(t.url), (err) => status(err) === 403);
  assert.equal(sim.redirection.counters.starts, starts, 'nothing reached the device');
});

test('the device closing an idle KVM session reaches the viewer with the reason', async () => {
  const sim = kit.fleet.devices[2]!;
  const { ws, rfb } = await k.kvm(sim);
  rfb.requestUpdate(false);
  await rfb.readUpdate();
  const { code, reason } = await k.closed(ws);
  assert.equal(code, 4001);
  assert.match(reason, /without keyboard or mouse input/);
  assert.equal(sim.redirection.counters.idleCloses, 1);
});

test('with wrong credentials stored first and the known one changed, 15 sessions in a row stay far from the lockout', async () => {
  const sim = kit.fleet.devices[3]!;
  // The gateway knows the fleet credential works; the device's password changes to one stored last,
  // after a wrong default: each session would try the known one, the default, then the right one.
  // The known one costs two failed logins: its nonce, proven by the scan's read, is refused and the
  // client signs once more on a fresh one (a nonce may expire without the device saying so), hence
  // four attempts an operation. With the default three, the first session would end refused after
  // the default, and whether it did depended on which worker thread had read the device.
  const wrong = await createCredential(kit.gw, kit.token, { name: 'wrong', username: 'admin', password: 'not-the-password-1', isDefault: true });
  const right = await createCredential(kit.gw, kit.token, { name: 'new', username: 'admin', password: 'New-P@ssw0rd-3' });
  sim.setPassword('New-P@ssw0rd-3');
  sim.resetCounters();
  try {
    for (let i = 0; i < 15; i++) {
      const ws = await k.relay((await k.ticket(sim, i % 2 ? 'kvm' : 'sol')).url);
      ws.close();
      await until('slot free', () => sim.redirection.open.size === 0, 5_000);
    }
    assert.equal(sim.lockedOut, false);
    // Two refusals for the changed known credential and one for the wrong default, in the first session only: the sign-in memory remembers.
    assert.ok(sim.counters().authFailures <= 3, `failed logins: ${sim.counters().authFailures}`);
    assert.equal(sim.redirection.counters.signIns, 15);
  } finally {
    sim.setPassword(FLEET_PASSWORD);
    await kit.gw.request('DELETE', `/api/credentials/${wrong}`, { token: kit.token });
    await kit.gw.request('DELETE', `/api/credentials/${right}`, { token: kit.token });
  }
});
