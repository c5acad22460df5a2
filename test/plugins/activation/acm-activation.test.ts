/**
 * Admin control mode: provisioning certificates uploaded as PFX (sealed, checked, flagged when they
 * expire soon), the firmware's trusted root hashes checked against the chain before anything reaches
 * the device, the chain added leaf to root, AdminSetup signed over the firmware's and our nonces (the
 * simulated firmware verifies all of it with Node's crypto), the MEBx password set.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { provisioningPki, type Pki } from '../../sim/activation/provisioning-pki.js';
import type { SimMachine } from '../../sim/activation/sim-machine.js';
import { agent, callsOf, createProfile, startActivationGateway, startMachine, type ActivationGateway } from './activation-kit.js';

const SUFFIX = 'vprodemo.example';
const MEBX = 'Mebx-P@ssw0rd1';

describe('admin control mode activation', () => {
  let gateway: ActivationGateway;
  let pki: Pki;
  const machines: SimMachine[] = [];

  before(async () => {
    gateway = await startActivationGateway({ options: { stepTimeoutMs: 1_500 } });
    pki = await provisioningPki();
    await createProfile(gateway, { name: 'acm', mode: 'acm', mebxPassword: MEBX, userConsent: 'none' });
  });
  after(async () => {
    for (const machine of machines) await machine.stop();
    await gateway?.stop();
  });

  const machine = async (index: number, options: Parameters<typeof startMachine>[1] = {}) => {
    const started = await startMachine(index, { dnsSuffix: SUFFIX, trustedRootHashes: [pki.rootSha256], ...options }, 2);
    machines.push(started);
    return started;
  };

  test('stores a provisioning certificate: its root\'s hash shown, the file and password never', async () => {
    const res = await gateway.send('POST', '/api/activation/domains', { suffix: SUFFIX, certificate: pki.pfxBase64, certificatePassword: pki.password });
    assert.equal(res.status, 201, await res.clone().text());
    const domain = (await res.json()) as Record<string, unknown>;
    assert.equal(domain['rootSha256'], pki.rootSha256);
    assert.equal(domain['expiresSoon'], false);
    const listed = JSON.stringify(await gateway.get('/api/activation/domains'));
    assert.ok(!listed.includes(pki.password) && !listed.includes(pki.pfxBase64.slice(0, 40)));
  });

  test('refuses a PFX it cannot use, saying why', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ suffix: 'a.example', certificate: pki.pfxBase64, certificatePassword: 'wrong' }, /password does not open it/],
      [{ suffix: 'b.example', certificate: (await provisioningPki({ commonName: 'provision.b.example', withoutRoot: true })).pfxBase64, certificatePassword: 'Pfx-P@ssw0rd' }, /up to the root/],
      [{ suffix: 'c.example', certificate: (await provisioningPki({ commonName: 'provision.c.example', withoutProvisioningMark: true })).pfxBase64, certificatePassword: 'Pfx-P@ssw0rd' }, /not an AMT provisioning certificate/],
      [{ suffix: 'd.example', certificate: pki.pfxBase64, certificatePassword: pki.password }, /not within 'd.example'/],
    ];
    for (const [body, why] of cases) {
      const res = await gateway.send('POST', '/api/activation/domains', body);
      assert.equal(res.status, 422);
      const problem = (await res.json()) as { code?: string; detail: string; type: string };
      assert.match(problem.type, /GW_ERR_ACTIVATION_CERTIFICATE_UNREADABLE/);
      assert.match(problem.detail, why);
    }
  });

  test('flags a certificate that expires within 30 days', async () => {
    const soon = await provisioningPki({ commonName: 'provision.soon.example', validDays: 10 });
    const res = await gateway.send('POST', '/api/activation/domains', { suffix: 'soon.example', certificate: soon.pfxBase64, certificatePassword: soon.password });
    assert.equal(res.status, 201);
    assert.equal(((await res.json()) as { expiresSoon: boolean }).expiresSoon, true);
  });

  test('activates in admin control mode: chain, signature and password checked by the firmware, MEBx password set', async () => {
    const m = await machine(0);
    const result = await agent(gateway, m, { command: 'activate', profile: 'acm' });
    assert.equal(result.outcome, 'success', result.message);
    assert.equal(result.status?.['Status'], 'Admin control mode.');
    assert.deepEqual(m.firmware.refusals, []);
    assert.equal(m.firmware.controlMode, 2);
    assert.equal(m.firmware.mebxPassword, MEBX);
    assert.equal(m.firmware.calls.get('IPS_HostBasedSetupService.AddNextCertInChain'), 3);
    // The profile asks for no consent: admin control mode may lower it.
    assert.equal(m.firmware.device.redirection.optInRequired, 0);
  });

  test('refuses before any request reaches the firmware when its trusted roots lack the chain\'s root', async () => {
    const m = await machine(1, { trustedRootHashes: ['00'.repeat(32)] });
    const result = await agent(gateway, m, { command: 'activate', profile: 'acm' });
    assert.equal(result.outcome, 'error');
    assert.match(result.message, /not among the roots the firmware trusts/);
    assert.equal(callsOf(m), 0);
    assert.equal(m.firmware.controlMode, 0);
  });

  test('refuses a device whose DNS suffix has no certificate', async () => {
    const m = await machine(2, { dnsSuffix: 'elsewhere.example' });
    const result = await agent(gateway, m, { command: 'activate', profile: 'acm' });
    assert.equal(result.outcome, 'error');
    assert.match(result.message, /no provisioning certificate for DNS suffix 'elsewhere.example'/);
  });

  test('confirms the control mode when the firmware ends its session after AdminSetup, instead of sending it again', async () => {
    const m = await machine(3, { dropAfterAdminSetup: true });
    const result = await agent(gateway, m, { command: 'activate', profile: 'acm' });
    assert.equal(result.outcome, 'success', result.message);
    assert.equal(m.firmware.calls.get('IPS_HostBasedSetupService.AdminSetup'), 1);
    assert.equal(m.firmware.controlMode, 2);
    const records = await gateway.get<Array<{ uuid: string; steps: Array<{ step: string }> }>>(`/api/activation/records?uuid=${m.uuid}`);
    assert.ok(records[0]!.steps.some((s) => s.step === 'confirm'));
  });
});
