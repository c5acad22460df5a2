/**
 * Features, consent and boot control against the simulator: enabling and disabling KVM / SOL (the
 * listener turned on with them), a disabled feature refused with 422, consent required, started,
 * answered with a wrong and the right code, a fixed policy in client control mode, boot to BIOS or
 * PXE consumed at the next reset (and shown on the serial console), and power-off ignored while KVM
 * is open reported as unconfirmed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleetGateway, type FleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';
import { codeOf, redirectionKit, type Problem } from './redirection-kit.js';
import { until } from '../../helpers/poll.js';

let kit: FleetGateway;
const k = redirectionKit(() => kit);

before(async () => {
  kit = await startFleetGateway({
    fleet: { count: 5, base: '127.63.2.1', provisioningModes: [1], seed: 'features-test' },
    range: '127.63.2.1-5',
    plugins: ['rest-api', 'redirection', 'power-mgmt'],
    pluginConfig: { 'power-mgmt': { options: { confirm: { intervalMs: 100, attempts: 3 } } } },
  });
});

after(async () => {
  await kit?.cleanup();
});

interface State {
  deviceId: string;
  features: { kvm: boolean; sol: boolean; ider: boolean };
  userConsent: string;
  optInState: string;
  sessions: unknown[];
}
const state = async (id: string) => (await (await k.api('GET', `/api/redirection/${id}`)).json()) as State;
const problem = async (res: Response) => codeOf((await res.json()) as Problem);

test('features read from the device; disabling SOL makes a SOL session 422; a closed listener reads as off and turning KVM on opens it', async () => {
  const sim = kit.fleet.devices[0]!;
  const id = k.idOf(sim);
  assert.deepEqual(await state(id), { deviceId: id, features: { kvm: true, sol: true, ider: true }, userConsent: 'none', optInState: 'not-started', sessions: [] });
  const put = await k.api('PUT', `/api/redirection/${id}/features`, { sol: false });
  assert.equal(put.status, 200);
  assert.deepEqual(((await put.json()) as State).features, { kvm: true, sol: false, ider: true });
  assert.equal(sim.redirection.sol, false);
  const res = await k.api('POST', `/api/redirection/${id}/sessions`, { mode: 'sol' });
  assert.equal(res.status, 422);
  assert.equal(await problem(res), 'GW_ERR_REDIRECTION_DISABLED');
  sim.redirection.listener = false;
  assert.deepEqual((await state(id)).features, { kvm: false, sol: false, ider: false });
  const on = (await (await k.api('PUT', `/api/redirection/${id}/features`, { kvm: true, sol: true })).json()) as State;
  assert.deepEqual(on.features, { kvm: true, sol: true, ider: true });
  assert.equal(sim.redirection.listener, true);
  assert.equal((await k.api('PUT', `/api/redirection/${id}/features`, {})).status, 400);
});

test('consent: a KVM session needs it, a wrong code is 422, the code on the screen lets the session open', async () => {
  const sim = kit.fleet.devices[1]!;
  const id = k.idOf(sim);
  assert.equal(((await (await k.api('PUT', `/api/redirection/${id}/features`, { userConsent: 'kvm' })).json()) as State).userConsent, 'kvm');
  const refused = await k.api('POST', `/api/redirection/${id}/sessions`, { mode: 'kvm' });
  assert.equal(refused.status, 409);
  assert.equal(await problem(refused), 'GW_ERR_CONSENT_REQUIRED');
  // SOL needs no consent under a KVM-only policy.
  const sol = await k.relay((await k.ticket(sim, 'sol')).url);
  sol.close();
  await until('slot free', () => sim.redirection.open.size === 0, 5_000);
  const started = await k.api('POST', `/api/redirection/${id}/consent`);
  assert.equal(started.status, 202);
  assert.deepEqual(await started.json(), { optInState: 'displayed' });
  const code = sim.redirection.consentCode!;
  assert.match(code, /^\d{6}$/);
  const wrongCode = code === '000000' ? '000001' : '000000';
  const wrong = await k.api('POST', `/api/redirection/${id}/consent/code`, { code: wrongCode });
  assert.equal(wrong.status, 422);
  assert.equal(await problem(wrong), 'GW_ERR_CONSENT_CODE_WRONG');
  assert.equal((await k.api('POST', `/api/redirection/${id}/consent/code`, { code: '12345' })).status, 400);
  const right = await k.api('POST', `/api/redirection/${id}/consent/code`, { code });
  assert.equal(right.status, 200);
  assert.deepEqual(await right.json(), { optInState: 'received' });
  const { ws, init } = await k.kvm(sim);
  assert.equal(init.name, 'Intel(r) AMT KVM');
  assert.equal((await state(id)).optInState, 'in-session');
  ws.close();
  await until('slot free', () => sim.redirection.open.size === 0, 5_000);
  assert.equal((await state(id)).optInState, 'not-started');
  await k.api('POST', `/api/redirection/${id}/consent`);
  assert.equal((await k.api('DELETE', `/api/redirection/${id}/consent`)).status, 204);
  assert.equal(sim.redirection.optInState, 0);
});

test('a device in client control mode: consent for everything, its policy cannot change (422)', async () => {
  const sim = kit.fleet.devices[2]!;
  sim.redirection.setClientControlMode();
  const id = k.idOf(sim);
  assert.equal((await state(id)).userConsent, 'all');
  const res = await k.api('PUT', `/api/redirection/${id}/features`, { userConsent: 'none' });
  assert.equal(res.status, 422);
  assert.equal(await problem(res), 'GW_ERR_CONSENT_POLICY_FIXED');
  const sol = await k.api('POST', `/api/redirection/${id}/sessions`, { mode: 'sol' });
  assert.equal(await problem(sol), 'GW_ERR_CONSENT_REQUIRED');
  // Boot to BIOS needs consent there too; nothing is written without it.
  const boot = await k.api('POST', `/api/power/${id}`, { action: 'reset', boot: 'bios' });
  assert.equal(boot.status, 409);
  assert.equal(await problem(boot), 'GW_ERR_CONSENT_REQUIRED');
  assert.equal(sim.redirection.boot.biosSetup, false);
  assert.equal(sim.redirection.resets, 0);
});

test('boot to BIOS and to PXE are used at the next reset only; the serial console shows BIOS setup', async () => {
  const sim = kit.fleet.devices[3]!;
  const id = k.idOf(sim);
  const res = await k.api('POST', `/api/power/${id}`, { action: 'reset', boot: 'bios' });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { deviceId: id, action: 'reset', boot: 'bios', returnValue: 0, ok: true, powerState: 2, state: 'on', confirmed: true });
  assert.equal(sim.redirection.lastBoot, 'bios');
  assert.equal(sim.redirection.boot.armed, false, 'used up');
  const { ws, console } = await k.sol(sim);
  await console.waitFor('Entering BIOS Setup');
  ws.close();
  await until('slot free', () => sim.redirection.open.size === 0, 5_000);
  assert.equal((await k.api('POST', `/api/power/${id}`, { action: 'reset' })).status, 200);
  assert.equal(sim.redirection.lastBoot, 'hdd', 'a plain reset boots normally');
  assert.equal((await k.api('POST', `/api/power/${id}`, { action: 'cycle', boot: 'pxe' })).status, 200);
  assert.equal(sim.redirection.lastBoot, 'pxe');
  assert.equal((await k.api('POST', `/api/power/${id}`, { action: 'off', boot: 'bios' })).status, 400);
  const offNow = await k.api('POST', `/api/power/${id}`, { action: 'on', boot: 'bios' });
  assert.equal(offNow.status, 422, 'on while on is not offered');
  assert.equal(sim.redirection.boot.biosSetup, false, 'nothing written before the 422');
});

test('power-off while a KVM session is open: the device ignores it and the result says unconfirmed', async () => {
  const sim = kit.fleet.devices[4]!;
  const id = k.idOf(sim);
  const { ws } = await k.kvm(sim);
  const res = await k.api('POST', `/api/power/${id}`, { action: 'off' });
  const body = (await res.json()) as { ok: boolean; confirmed: boolean; state: string };
  assert.equal(body.confirmed, false);
  assert.equal(body.state, 'on');
  ws.close();
  await until('slot free', () => sim.redirection.open.size === 0, 5_000);
});
