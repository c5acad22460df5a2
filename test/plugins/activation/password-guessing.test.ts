/**
 * Guessing through the agent door: an agent asking for a change to an activated device proves itself
 * with the device's AMT password or a one-time code, and rpc-go sends no credential of its own. So
 * failed proofs are counted from each attempt's start, per device and source address, per device
 * from every address, and per address over every device: past the bounds an agent is refused for a
 * while without its password being compared, even the right one, the refusal coded, recorded and
 * audited as a failure, without a secret in it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SimMachine } from '../../sim/activation/sim-machine.js';
import { agent, createProfile, startActivationGateway, startMachine, type ActivationGateway } from './activation-kit.js';

const FIXED = 'Fixed-P@ssw0rd1';
const GUESS = 'Guess-P@ssw0rd';

interface RecordView {
  uuid: string;
  action: string;
  outcome: string;
  remoteAddress: string;
  error?: { code: string; detail: string };
}

describe('failed password proofs through the agent door', () => {
  let gateway: ActivationGateway;
  let first: SimMachine;
  let second: SimMachine;
  let third: SimMachine;

  const records = async (uuid: string) => gateway.get<RecordView[]>(`/api/activation/records?uuid=${uuid}&limit=100`);

  before(async () => {
    gateway = await startActivationGateway({ options: { proofMaxFailures: 3, proofDeviceMaxFailures: 5, proofAddressMaxFailures: 4, proofWindowSeconds: 600 } });
    await createProfile(gateway, { name: 'fixed', mode: 'ccm', password: 'fixed', fixedPassword: FIXED });
    first = await startMachine(0, {}, 9);
    second = await startMachine(1, {}, 9);
    third = await startMachine(2, {}, 9);
    for (const machine of [first, second, third]) {
      const result = await agent(gateway, machine, { command: 'activate', profile: 'fixed' });
      assert.equal(result.outcome, 'success', result.message);
    }
  });
  after(async () => {
    for (const machine of [first, second, third]) await machine?.stop();
    await gateway?.stop();
  });

  test('refuses a device\'s proofs from an address after its failures there, even the right password, coded and audited, without a secret', async () => {
    for (let i = 0; i < 3; i++) {
      const wrong = await agent(gateway, first, { command: 'deactivate' }, { password: `${GUESS}${i}` });
      assert.equal(wrong.outcome, 'error');
      assert.match(wrong.message, /does not match/);
    }
    const refused = await agent(gateway, first, { command: 'deactivate' }, { password: FIXED });
    assert.equal(refused.outcome, 'error');
    assert.match(refused.message, /too many failed/);
    assert.match(refused.message, /try again in \d+ s/);
    assert.ok(!refused.message.includes(FIXED));
    assert.equal(first.firmware.controlMode, 1, 'not unprovisioned');
    assert.equal(first.firmware.calls.get('AMT_SetupAndConfigurationService.Unprovision'), undefined);

    const [latest] = await records(first.uuid);
    assert.equal(latest?.outcome, 'failed');
    assert.equal(latest?.error?.code, 'GW_ERR_ACTIVATION_PROOF_LIMIT');
    const audit = await gateway.get<Array<{ action: string; outcome: string; detail: Record<string, unknown> }>>('/api/audit?action=activation.deactivate');
    const refusals = audit.filter((a) => a.detail['uuid'] === first.uuid && a.detail['error'] === 'GW_ERR_ACTIVATION_PROOF_LIMIT');
    assert.equal(refusals.length, 1);
    assert.equal(refusals[0]!.outcome, 'failure');
    for (const text of [JSON.stringify(audit), JSON.stringify(await records(first.uuid)), gateway.logs.join('\n')]) {
      assert.ok(!text.includes(GUESS), 'no guessed password anywhere');
      assert.ok(!text.includes(FIXED), 'no password anywhere');
    }
  });

  test('another device from the same address still proves itself (the count is per device there)', async () => {
    const result = await agent(gateway, second, { command: 'maintenance', task: 'synctime' }, { password: FIXED, localAddress: first.address });
    assert.equal(result.outcome, 'success', result.message);
  });

  test('counts a device\'s failures from every address together: guessing from many addresses gains nothing', async () => {
    // The first machine's 3 failures from its own address count; 2 more from two other addresses reach 5.
    for (const localAddress of ['127.77.9.101', '127.77.9.102']) {
      const wrong = await agent(gateway, first, { command: 'deactivate' }, { password: GUESS, localAddress });
      assert.match(wrong.message, /does not match/);
    }
    const fresh = await agent(gateway, first, { command: 'deactivate' }, { password: FIXED, localAddress: '127.77.9.103' });
    assert.equal(fresh.outcome, 'error');
    assert.match(fresh.message, /too many failed/);
    assert.equal(first.firmware.controlMode, 1);
  });

  test('counts an address\'s failures over every device: spraying devices from one address is refused too', async () => {
    // 4 failures from one address, 2 per device: below the bound per device there (3) and per device (5).
    const sprayer = '127.77.9.200';
    for (const machine of [second, third]) {
      for (let i = 0; i < 2; i++) {
        const wrong = await agent(gateway, machine, { command: 'maintenance', task: 'synctime' }, { password: GUESS, localAddress: sprayer });
        assert.match(wrong.message, /does not match/);
      }
    }
    const refused = await agent(gateway, third, { command: 'maintenance', task: 'synctime' }, { password: FIXED, localAddress: sprayer });
    assert.match(refused.message, /too many failed/);
    const own = await agent(gateway, third, { command: 'maintenance', task: 'synctime' }, { password: FIXED });
    assert.equal(own.outcome, 'success', own.message);
  });
});
