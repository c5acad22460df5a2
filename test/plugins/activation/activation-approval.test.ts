/**
 * A machine whose UUID is already a managed device waits for an operator's approval before it
 * replaces that device (its record says `waiting`, the agent gets heartbeats meanwhile); one agent
 * per device at a time; each step published on the hub as `ActivationProgress` to those who may read it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { HubConnection } from '@microsoft/signalr';
import type { ActivationApproval, ActivationRecord } from '../../../plugins/activation/api.js';
import type { SimMachine } from '../../sim/activation/sim-machine.js';
import { until } from '../../helpers/poll.js';
import { connectSignalR } from '../scan-hub/hub-test-kit.js';
import { agent, createProfile, startActivationGateway, startMachine, type ActivationGateway } from './activation-kit.js';

describe('approval of an activation that replaces a managed device', () => {
  let gateway: ActivationGateway;
  let machine: SimMachine;
  let hub: HubConnection;
  const progress: Array<Record<string, unknown>> = [];

  before(async () => {
    gateway = await startActivationGateway({ plugins: ['scan-hub'], options: { approvalWaitSeconds: 30, heartbeatSeconds: 1 } });
    await createProfile(gateway, { name: 'ccm', mode: 'ccm' });
    machine = await startMachine(0, {}, 4);
    const reader = await gateway.gw.userWith(['activation:read']);
    ({ connection: hub } = await connectSignalR(gateway.gw.url, reader));
    hub.on('ActivationProgress', (event: Record<string, unknown>) => progress.push(event));
  });
  after(async () => {
    await hub?.stop();
    await machine?.stop();
    await gateway?.stop();
  });

  test('publishes each step of an activation on the hub', async () => {
    const result = await agent(gateway, machine, { command: 'activate', profile: 'ccm' });
    assert.equal(result.outcome, 'success', result.message);
    await until('the last progress event', () => progress.find((p) => p['outcome'] === 'succeeded'));
    assert.deepEqual([...new Set(progress.map((p) => p['step']))], ['connected', 'check', 'read', 'setup', 'features']);
    assert.ok(progress.every((p) => p['uuid'] === machine.uuid));
  });

  test('an activation of the same UUID again waits for approval, with heartbeats, then goes on once approved', async () => {
    // The firmware was reset to pre-provisioning (MEBx), the gateway still manages the device.
    machine.firmware.unprovision();
    const running = agent(gateway, machine, { command: 'activate', profile: 'ccm' });
    const waiting = await until('the approval request', async () => (await gateway.get<ActivationApproval[]>('/api/activation/approvals')).find((a) => a.uuid === machine.uuid && a.recordId));
    const [record] = await gateway.get<ActivationRecord[]>(`/api/activation/records?uuid=${machine.uuid}&outcome=waiting`);
    assert.equal(record?.id, waiting.recordId);
    assert.equal(machine.firmware.controlMode, 0, 'nothing reached the firmware yet');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const res = await gateway.send('POST', `/api/activation/approvals/${machine.uuid}`);
    assert.equal(res.status, 200, await res.clone().text());
    const result = await running;
    assert.equal(result.outcome, 'success', result.message);
    assert.ok(result.heartbeats >= 1, 'the agent heard heartbeats while waiting');
    assert.equal(machine.firmware.controlMode, 1);
    const devices = await gateway.get<Array<{ uuid: string }>>('/api/devices');
    assert.equal(devices.filter((d) => d.uuid === machine.uuid).length, 1, 'the same device, replaced, not a second one');
  });

  test('a second agent for a device that has one working is refused', async () => {
    machine.firmware.unprovision();
    const first = agent(gateway, machine, { command: 'activate', profile: 'ccm' });
    await until('the first waiting', async () => (await gateway.get<ActivationApproval[]>('/api/activation/approvals')).some((a) => a.uuid === machine.uuid && a.recordId));
    const second = await agent(gateway, machine, { command: 'activate', profile: 'ccm' });
    assert.equal(second.outcome, 'error');
    assert.match(second.message, /another agent works on device/);
    await gateway.send('POST', `/api/activation/approvals/${machine.uuid}`);
    assert.equal((await first).outcome, 'success');
  });

  test('approving needs activation:manage', async () => {
    const reader = await gateway.gw.userWith(['activation:read']);
    const res = await gateway.gw.request('POST', `/api/activation/approvals/${machine.uuid}`, { token: reader });
    assert.equal(res.status, 403);
  });
});
