/**
 * One WS-Management check of a device for the diagnostics routes, through the device gate like
 * every other device I/O (`deviceGate.check`): its path (a CIRA tunnel or the local network, inside
 * the allowed networks), its sign-in memory, its turn and its pin; the credential is named by id and
 * unsealed by the gate alone. A credential the memory holds back (refused earlier, or the device near
 * its lockout) gets the check without credentials and the reason.
 */
import { isHttpError, type PluginContext } from '../../../core/plugin-api.js';
import type { AuthStatus, Device, DeviceGate } from 'amt-gateway/devices';
import { parseIpv4 } from '../../../core/net/ipv4.js';
import type { WsmanCheckOutput } from '../../../workers/tasks/task-types.js';
import type { RestApiConfig } from '../config.js';
import { RestApiErrors } from '../errors.js';

/** What a check found, and the status it gives the device. */
export interface CheckResult {
  address: string;
  device: Readonly<Device> | undefined;
  result: WsmanCheckOutput;
  status: AuthStatus;
}

const HELD_BACK: Record<string, { status: AuthStatus; message: (detail: string) => string }> = {
  GW_ERR_SIGN_IN_PAUSED: { status: 'locked-out-risk', message: (detail) => `not signed in: sign-ins to this device are paused to avoid locking its account: ${detail}` },
  GW_ERR_DEVICE_UNAUTHORIZED: { status: 'unauthorized', message: () => "not signed in: the device refused this credential earlier; change its password or reset the device's sign-in memory" },
};

function statusOf(result: WsmanCheckOutput): AuthStatus {
  if (result.authenticated) return 'ok';
  if (!result.reachable) return 'unreachable';
  if (result.error?.code === 'AMT_ERR_LOCKED_OUT') return 'locked-out-risk';
  return result.error?.code === 'AMT_ERR_UNAUTHORIZED' ? 'unauthorized' : 'error';
}

/** Checks the device `text` names (address, device id or UUID) with stored credential `credentialId`, or without one. */
export function createDiagnosticCheck(ctx: PluginContext<RestApiConfig>, gate: DeviceGate) {
  const { scan } = ctx.config;
  /** @throws 400 for a malformed address, 404/409 for a target that names no or several devices, 422 outside the allowed networks. */
  return async (text: string, where: string, credentialId: string | null): Promise<CheckResult> => {
    const device = gate.deviceNamed(text, where);
    const address = device?.ipAddress ?? text;
    if (!device && parseIpv4(address) === undefined) throw RestApiErrors.addressMalformed(address);
    const { result, signedIn, problem } = await gate.check(
      { address, ...(device ? { device } : {}) },
      { credentialId, timeouts: { connectMs: scan.defaultTimeoutMs, firstByteMs: scan.requestTimeoutMs, totalMs: scan.requestTimeoutMs } },
    );
    if (signedIn) return { address, device, result, status: statusOf(result) };
    const heldBack = credentialId !== null && isHttpError(problem) ? HELD_BACK[problem.code ?? ''] : undefined;
    if (!heldBack) return { address, device, result, status: statusOf(result) };
    // The problem names the device before its detail; the check's answer gives the detail alone.
    const detail = isHttpError(problem) ? problem.message.replace(/^.*?: /, '') : '';
    const held = { ...result, error: { code: 'AMT_ERR_UNAUTHORIZED' as const, message: heldBack.message(detail) } };
    return { address, device, result: held, status: result.reachable ? heldBack.status : 'unreachable' };
  };
}
