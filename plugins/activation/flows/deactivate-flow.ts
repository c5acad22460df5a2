/**
 * `rpc deactivate`: the agent proves it holds the device's stored password, the firmware is
 * unprovisioned with it (client or admin control mode alike), then the device's password, its CIRA
 * account and its provisioned state go from the gateway. The device stays listed, in pre-provisioning.
 */
import { ActivationErrors } from '../errors.js';
import { unprovision } from '../device/steps/maintenance-steps.js';
import type { FlowContext, FlowParts, StatusMessage } from './flow-parts.js';
import { provenCredential } from './password-proof.js';
import type { DeviceFacts } from '../wire/agent-request.js';

export async function deactivate(parts: FlowParts, ctx: FlowContext, request: { facts: DeviceFacts; password: string | null }): Promise<StatusMessage> {
  const { agent, tracker } = ctx;
  tracker.step('check');
  if (request.facts.currentMode === 0) throw ActivationErrors.wrongState('the device is in pre-provisioning already');
  tracker.record.mode = request.facts.currentMode === 2 ? 'acm' : 'ccm';
  // `-f` does not skip this: without the password, any agent could have us unprovision whatever it relays to.
  const admin = await provenCredential(parts, ctx, request.password);
  agent.proven = true;
  tracker.step('unprovision');
  await parts.link.run(agent, admin, 'deactivate', (calls) => unprovision(calls));
  tracker.step('forget');
  await parts.vault.unbind(agent.uuid);
  await parts.cira?.releaseAccount(agent.uuid);
  const device = parts.devices.findByUuid(agent.uuid);
  if (device) await parts.devices.update(device.id, { provisioningState: 'PRE', provisioningMode: null, credentialId: null, authStatus: 'unauthorized' });
  await tracker.succeed(device?.id);
  return { Status: 'Deactivated' };
}
