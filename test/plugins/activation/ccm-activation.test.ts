/**
 * Client control mode end to end: rpc-go's protocol from the simulated agent, the firmware activated
 * with a password of its own (sealed as the device's credential, then used on the LAN), features
 * applied, the device listed, the record, the hub's progress and the audit trail written without a secret.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ActivationRecord } from '../../../plugins/activation/api.js';
import type { SimMachine } from '../../sim/activation/sim-machine.js';
import { agent, callsOf, createProfile, startActivationGateway, startMachine, type ActivationGateway } from './activation-kit.js';

interface DeviceView {
  id: string;
  uuid: string;
  ipAddress: string;
  provisioningState: string;
  provisioningMode: string;
  credentialId: string;
}

describe('client control mode activation (rpc-go protocol, LAN profile)', () => {
  let gateway: ActivationGateway;
  let machine: SimMachine;
  /** What the firmware answered during the activation (its requests, its Digest challenges). */
  let answered = 0;

  before(async () => {
    gateway = await startActivationGateway({ plugins: ['power-mgmt'] });
    await createProfile(gateway, { name: 'ccm-lan', mode: 'ccm', connection: 'lan' });
    // A block of its own: test/package/install-tarball.test.ts scans 127.77.0.1-4 at 16992 and must find nothing there.
    machine = await startMachine(0, { networkPort: 16992 }, 11);
    // Redirection off from the factory, so that the profile's features must be written.
    Object.assign(machine.firmware.device.redirection, { sol: false, ider: false, kvm: false, listener: false });
  });
  after(async () => {
    await machine?.stop();
    await gateway?.stop();
  });

  test('activates the machine, and says so in RPS\'s success message', async () => {
    const result = await agent(gateway, machine, { command: 'activate', profile: 'ccm-lan' });
    assert.equal(result.outcome, 'success', result.message);
    assert.equal(result.status?.['Status'], 'Client control mode.');
    assert.equal(machine.firmware.controlMode, 1);
    assert.deepEqual(machine.firmware.refusals, []);
    assert.ok(result.progress.length > 0, 'rpc-go 2.x prints progress lines');
    answered = callsOf(machine);
  });

  test('applies the profile\'s features', () => {
    const r = machine.firmware.device.redirection;
    assert.deepEqual({ sol: r.sol, ider: r.ider, kvm: r.kvm, listener: r.listener }, { sol: true, ider: true, kvm: true, listener: true });
  });

  test('lists the device, provisioned in client control mode, its own credential first', async () => {
    const devices = await gateway.get<DeviceView[]>('/api/devices');
    const device = devices.find((d) => d.uuid === machine.uuid);
    assert.ok(device, 'the activated device is listed');
    assert.equal(device.provisioningState, 'POST');
    assert.equal(device.provisioningMode, 'CCM');
    assert.equal(device.ipAddress, machine.address);
    // Not among the shared credentials: it belongs to this device alone.
    const shared = await gateway.get<Array<{ id: string }>>('/api/credentials');
    assert.ok(!shared.some((c) => c.id === device.credentialId));
  });

  test('reaches the device on the LAN afterwards with its own password (no shared credential stored)', async () => {
    const devices = await gateway.get<DeviceView[]>('/api/devices');
    const device = devices.find((d) => d.uuid === machine.uuid)!;
    const res = await gateway.send('GET', `/api/power/${device.id}`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(((await res.json()) as { state: string }).state, 'on');
  });

  test('records the action with its steps and the WS-Management requests the firmware answered, and no secret', async () => {
    const records = await gateway.get<ActivationRecord[]>('/api/activation/records');
    assert.equal(records.length, 1);
    const [record] = records;
    assert.equal(record!.outcome, 'succeeded');
    assert.equal(record!.uuid, machine.uuid);
    assert.deepEqual(record!.steps.map((s) => s.step), ['check', 'read', 'setup', 'features']);
    const text = JSON.stringify(records);
    assert.ok(!text.includes(machine.firmware.options.localAccount.password));
    assert.equal(record!.calls, answered, 'every request relayed is one the firmware answered');
    // GeneralSettings (challenged once), Setup, then the features read and the three writes they needed.
    assert.equal(record!.calls, 8);
  });

  test('writes an audit record of the activation with its steps, and no secret', async () => {
    const audit = await gateway.get<Array<{ action: string; outcome: string; detail: Record<string, unknown> }>>('/api/audit?action=activation.activate');
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.outcome, 'success');
    assert.ok(!JSON.stringify(audit).includes(machine.firmware.options.localAccount.password));
  });
});
