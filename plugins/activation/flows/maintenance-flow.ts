/**
 * `rpc maintenance`: with the device's stored password proven, one task. A new admin password is
 * sealed before it is sent, and the old one restored if the firmware refused the change; the clock
 * is set from ours; the host name from the one the agent reports.
 */
import { isHttpError } from '../../../core/plugin-api.js';
import { randomPassword } from '../../../core/util/random-password.js';
import { ActivationErrors } from '../errors.js';
import { changeAdminPassword, syncClock, syncHostName } from '../device/steps/maintenance-steps.js';
import { ADMIN_USER, readGeneralSettings } from '../device/steps/setup-steps.js';
import type { MaintenanceTask, DeviceFacts } from '../wire/agent-request.js';
import type { FlowContext, FlowParts, StatusMessage } from './flow-parts.js';
import { provenCredential } from './password-proof.js';

/** AMT's rule for a password given on the command line (as the profile schema states it). */
const AMT_PASSWORD = /^(?=.*[a-z])(?=.*[A-Z])(?=.*[0-9])(?=.*[^A-Za-z0-9])[^<>&\s]{8,32}$/;

export async function maintain(parts: FlowParts, ctx: FlowContext, request: { task: MaintenanceTask; facts: DeviceFacts; password: string | null; newPassword: string | null }): Promise<StatusMessage> {
  const { agent, tracker } = ctx;
  tracker.step('check');
  tracker.record.task = request.task;
  if (request.facts.currentMode === 0) throw ActivationErrors.wrongState('the device is in pre-provisioning');
  tracker.record.mode = request.facts.currentMode === 2 ? 'acm' : 'ccm';
  if (request.task === 'syncip' || request.task === 'syncdeviceinfo') throw ActivationErrors.maintenanceUnsupported(request.task);
  if (request.newPassword !== null && !AMT_PASSWORD.test(request.newPassword)) {
    throw ActivationErrors.badMessage('the new password must be 8 to 32 characters with an upper-case and a lower-case letter, a digit and a special character');
  }
  const admin = await provenCredential(parts, ctx, request.password);
  agent.proven = true;
  tracker.step(request.task);
  let detail = '';
  if (request.task === 'changepassword') {
    const password = request.newPassword ?? randomPassword(16);
    let change: Awaited<ReturnType<FlowParts['vault']['rebind']>> | undefined;
    try {
      await parts.link.run(agent, admin, 'changepassword', async (calls) => {
        const realm = (await readGeneralSettings(calls)).realm;
        // Stored before the firmware is asked: a gateway that stops now still knows the device's password.
        // The operation signed in with the old one already, which the vault keeps for the undo.
        change = await parts.vault.rebind(agent.uuid, { username: ADMIN_USER, password });
        await changeAdminPassword(calls, realm, password);
      });
    } catch (error) {
      // Refused: the old password stands. Any other end leaves the new one stored (it may have been taken).
      if (change && isHttpError(error) && error.code === 'GW_ERR_ACTIVATION_FIRMWARE_REFUSED') await change.undo();
      throw error;
    }
    const bound = change!.credential;
    const device = parts.devices.findByUuid(agent.uuid);
    if (device) await parts.devices.update(device.id, { credentialId: bound.id });
  } else if (request.task === 'synctime') {
    const offset = await parts.link.run(agent, admin, 'synctime', (calls) => syncClock(calls));
    detail = `(the clock was ${Math.abs(offset)} s ${offset > 0 ? 'ahead' : 'behind'})`;
  } else {
    if (!/^[A-Za-z0-9]([A-Za-z0-9-]{0,62})$/.test(request.facts.hostname)) throw ActivationErrors.badMessage('the host name is not a DNS label');
    const changed = await parts.link.run(agent, admin, 'synchostname', (calls) => syncHostName(calls, request.facts.hostname, ''));
    detail = changed ? `(now ${request.facts.hostname})` : '(unchanged)';
  }
  await tracker.succeed(parts.devices.findByUuid(agent.uuid)?.id);
  return { Status: `${request.task} completed successfully${detail ? ` ${detail}` : ''}` };
}
