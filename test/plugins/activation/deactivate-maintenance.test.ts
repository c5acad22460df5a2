/**
 * Deactivation and maintenance through rpc-go's protocol: the agent proves it is the device's by the
 * stored password (or a one-time code an operator issued for it, since a generated password is known
 * to nobody), then the firmware is unprovisioned (its password, CIRA account and provisioning gone
 * from the gateway), its admin password rotated (sealed before it is sent), its clock or host name set.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SimMachine } from '../../sim/activation/sim-machine.js';
import { until } from '../../helpers/poll.js';
import { agent, createProfile, startActivationGateway, startMachine, type ActivationGateway } from './activation-kit.js';

const FIXED = 'Fixed-P@ssw0rd1';

describe('deactivation and maintenance', () => {
  let gateway: ActivationGateway;
  let generated: SimMachine;
  let fixed: SimMachine;

  const code = async (uuid: string) => {
    const res = await gateway.send('POST', '/api/activation/codes', { uuid });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { code: string }).code;
  };
  const device = async (uuid: string) => (await gateway.get<Array<{ uuid: string; provisioningState: string; credentialId: string | null; connections: string[] }>>('/api/devices')).find((d) => d.uuid === uuid);

  before(async () => {
    gateway = await startActivationGateway({ cira: true });
    await createProfile(gateway, { name: 'ccm-cira', mode: 'ccm', connection: 'cira' });
    await createProfile(gateway, { name: 'ccm-fixed', mode: 'ccm', password: 'fixed', fixedPassword: FIXED });
    generated = await startMachine(0, { ciraReconnectMs: 300 }, 3);
    fixed = await startMachine(1, {}, 3);
    for (const [machine, profile] of [[generated, 'ccm-cira'], [fixed, 'ccm-fixed']] as const) {
      const result = await agent(gateway, machine, { command: 'activate', profile });
      assert.equal(result.outcome, 'success', result.message);
    }
    await until('the tunnel', async () => (await device(generated.uuid))?.connections.includes('cira'));
  });
  after(async () => {
    await generated?.stop();
    await fixed?.stop();
    await gateway?.stop();
  });

  test('refuses to deactivate with a wrong password, or with none (-f does not skip the proof)', async () => {
    for (const password of ['Wrong-P@ss1', undefined]) {
      const result = await agent(gateway, generated, { command: 'deactivate', force: true }, password ? { password } : {});
      assert.equal(result.outcome, 'error');
      assert.match(result.message, /does not match/);
    }
    assert.equal(generated.firmware.controlMode, 1);
    assert.equal(generated.firmware.calls.get('AMT_SetupAndConfigurationService.Unprovision'), undefined);
  });

  test('a one-time code stands in for a generated password, once', async () => {
    const once = await code(generated.uuid);
    const first = await agent(gateway, generated, { command: 'maintenance', task: 'synctime' }, { password: once });
    assert.equal(first.outcome, 'success', first.message);
    const again = await agent(gateway, generated, { command: 'maintenance', task: 'synctime' }, { password: once });
    assert.equal(again.outcome, 'error');
    assert.match(again.message, /does not match/);
  });

  test('deactivates: the firmware unprovisioned, the device back in pre-provisioning, its password and CIRA account gone, its tunnel down', async () => {
    const result = await agent(gateway, generated, { command: 'deactivate' }, { password: await code(generated.uuid) });
    assert.equal(result.outcome, 'success', result.message);
    assert.equal(result.status?.['Status'], 'Deactivated');
    assert.equal(generated.firmware.controlMode, 0);
    const listed = await device(generated.uuid);
    assert.equal(listed?.provisioningState, 'PRE');
    assert.equal(listed?.credentialId, null);
    assert.deepEqual(await gateway.get('/api/cira/accounts'), []);
    await until('the tunnel gone', async () => !(await device(generated.uuid))?.connections.includes('cira'));
    const codes = await gateway.send('POST', '/api/activation/codes', { uuid: generated.uuid });
    assert.equal(codes.status, 409, 'no password of it is stored any more');
  });

  test('sets the firmware\'s clock from the gateway\'s', async () => {
    fixed.firmware.clockOffsetSeconds = -3600;
    const result = await agent(gateway, fixed, { command: 'maintenance', task: 'synctime' }, { password: FIXED });
    assert.equal(result.outcome, 'success', result.message);
    assert.match(String(result.status?.['Status']), /synctime completed successfully \(the clock was 36\d\d s behind\)/);
    assert.ok(Math.abs(fixed.firmware.clockOffsetSeconds) <= 2);
  });

  test('sets the firmware\'s host name from the one the agent reports', async () => {
    fixed.firmware.device.hostname = 'factory-name';
    const result = await agent(gateway, fixed, { command: 'maintenance', task: 'synchostname' }, { password: FIXED });
    assert.equal(result.outcome, 'success', result.message);
    assert.equal(fixed.firmware.device.hostname, fixed.firmware.options.hostname);
  });

  test('rotates the admin password: the new one works, the old one no longer does', async () => {
    const rotated = 'Rotated-P@ss2';
    const result = await agent(gateway, fixed, { command: 'maintenance', task: 'changepassword', newPassword: rotated }, { password: FIXED });
    assert.equal(result.outcome, 'success', result.message);
    const old = await agent(gateway, fixed, { command: 'maintenance', task: 'synctime' }, { password: FIXED });
    assert.equal(old.outcome, 'error');
    const fresh = await agent(gateway, fixed, { command: 'maintenance', task: 'synctime' }, { password: rotated });
    assert.equal(fresh.outcome, 'success', fresh.message);
  });

  test('refuses the tasks it does not do, and says which it does', async () => {
    const result = await agent(gateway, fixed, { command: 'maintenance', task: 'syncip' }, { password: 'Rotated-P@ss2' });
    assert.equal(result.outcome, 'error');
    assert.match(result.message, /not supported by this gateway \(changepassword, synctime, synchostname\)/);
  });
});
