/**
 * Wrong consent codes are bounded by the gateway, not left to the firmware: per device and user, and
 * per device over all users, each attempt counted from its start, so parallel guesses gain nothing;
 * past the bound even the right code is refused (429) without reaching the device.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleetGateway, type FleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';
import { codeOf, redirectionKit, type Problem } from './redirection-kit.js';

let kit: FleetGateway;
const k = redirectionKit(() => kit);

before(async () => {
  kit = await startFleetGateway({
    fleet: { count: 2, base: '127.63.9.1', provisioningModes: [1], seed: 'consent-bounds' },
    range: '127.63.9.1-2',
    plugins: ['rest-api', 'redirection'],
    pluginConfig: { redirection: { options: { consent: { maxWrongCodes: 3, maxWrongCodesPerDevice: 5, windowSeconds: 900 } } } },
  });
});
after(async () => {
  await kit?.cleanup();
});

const sendCode = (id: string, code: string, token?: string) => k.api('POST', `/api/redirection/${id}/consent/code`, { code }, token);
const wrongFor = (code: string) => (code === '000000' ? '000001' : '000000');

test('parallel wrong codes: at most maxWrongCodes reach the device; then the right code is refused too, with Retry-After', async () => {
  const sim = kit.fleet.devices[0]!;
  const id = k.idOf(sim);
  await k.api('PUT', `/api/redirection/${id}/features`, { userConsent: 'kvm' });
  assert.equal((await k.api('POST', `/api/redirection/${id}/consent`)).status, 202);
  const code = sim.redirection.consentCode!;
  const before = sim.redirection.counters.codeAttempts;
  const answers = await Promise.all(Array.from({ length: 200 }, () => sendCode(id, wrongFor(code))));
  const statuses = answers.map((r) => r.status);
  assert.ok(statuses.every((s) => s === 422 || s === 429), JSON.stringify([...new Set(statuses)]));
  assert.ok(sim.redirection.counters.codeAttempts - before <= 3, `codes the device checked: ${sim.redirection.counters.codeAttempts - before}`);
  const right = await sendCode(id, code);
  assert.equal(right.status, 429);
  assert.equal(codeOf((await right.json()) as Problem), 'GW_ERR_CONSENT_CODE_LIMIT');
  assert.ok(Number(right.headers.get('retry-after')) >= 1);
  assert.equal(sim.redirection.optInState, 2, 'the device never got the right code: consent not given');
});

test("another user has a budget of its own, within the device's bound over all users; a right code clears its user's count", async () => {
  const sim = kit.fleet.devices[1]!;
  const id = k.idOf(sim);
  await k.api('PUT', `/api/redirection/${id}/features`, { userConsent: 'kvm' });
  await k.api('POST', `/api/redirection/${id}/consent`);
  const code = sim.redirection.consentCode!;
  assert.equal((await sendCode(id, wrongFor(code))).status, 422);
  assert.equal((await sendCode(id, wrongFor(code))).status, 422);
  assert.equal((await sendCode(id, code)).status, 200, 'the right code within the budget works');
  assert.equal((await sendCode(id, wrongFor(code))).status, 422, "the admin's count was cleared: a fresh budget");
  const other = await kit.gw.userWith(['remote:connect'], 'consent-other');
  await k.api('POST', `/api/redirection/${id}/consent`);
  const next = sim.redirection.consentCode!;
  assert.equal((await sendCode(id, wrongFor(next), other)).status, 422);
  assert.equal((await sendCode(id, wrongFor(next), other)).status, 422);
  const capped = await sendCode(id, wrongFor(next), other);
  assert.equal(capped.status, 429, 'five wrong codes on the device over both users: its bound');
  assert.equal(codeOf((await capped.json()) as Problem), 'GW_ERR_CONSENT_CODE_LIMIT');
});
