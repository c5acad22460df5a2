/**
 * One WS-Management check of a device for the diagnostics routes, through the device gate like
 * every other device I/O: its path (a CIRA tunnel or the local network, inside the allowed
 * networks), its sign-in memory, its turn and its pin. A credential the memory holds back (refused
 * earlier, or the device near its lockout) gets the check without credentials and the reason.
 */
import { isHttpError, type PluginContext } from '../../../core/plugin-api.js';
import type { AuthStatus, Device, DeviceGate, DeviceTasks, GatePath, TaskOutcome } from 'amt-gateway/devices';
import { parseIpv4 } from '../../../core/net/ipv4.js';
import type { DeviceTarget, TaskCredential, WsmanCheckInput, WsmanCheckOutput } from '../../../workers/tasks/task-types.js';
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

function outcomeOf(result: WsmanCheckOutput): TaskOutcome {
  const meta = { tlsFingerprint: result.tlsFingerprint, failedLogins: result.failedLogins, tlsProtocol: result.tlsProtocol };
  if (result.authenticated) return { ok: true, ...meta };
  return { ok: false, error: result.error ?? { code: 'AMT_ERR_CONNECT', message: 'the device did not answer' }, ...meta };
}

/** Checks the device `text` names (address, device id or UUID) with `credential`, or without one. */
export function createDiagnosticCheck(ctx: PluginContext<RestApiConfig>, gate: DeviceGate) {
  const { ports } = gate.settings;
  const { scan } = ctx.config;
  const check = (tasks: DeviceTasks, target: DeviceTarget, path: GatePath, credential: TaskCredential | null) => {
    // On the local network the check tries HTTP, then TLS; a path (a tunnel, a relay) leads to one port.
    const routed = path.kind !== 'lan';
    const input: WsmanCheckInput = {
      address: target.address,
      ports: routed ? { ...ports, http: target.tls ? 0 : target.port, https: target.tls ? target.port : 0 } : { ...ports },
      credential,
      timeouts: target.timeouts,
      tlsTrust: target.tlsTrust,
      pinnedFingerprint: target.pinnedFingerprint,
      ...(target.channel ? { channel: target.channel } : {}),
    };
    return tasks.run('wsman-check', input).then((result) => {
      // Report the device's port, not the one of an address route (a relay).
      if (routed && !target.channel && result.port !== null) result.port = target.tls ? ports.https : ports.http;
      return result;
    });
  };

  /** @throws 400 for a malformed address, 404/409 for a target that names no or several devices, 422 outside the allowed networks. */
  return async (text: string, where: string, credential: TaskCredential | null): Promise<CheckResult> => {
    const device = gate.deviceNamed(text, where);
    const address = device?.ipAddress ?? text;
    if (!device && parseIpv4(address) === undefined) throw RestApiErrors.addressMalformed(address);
    let signed: WsmanCheckOutput | undefined;
    let anonymous: WsmanCheckOutput | undefined;
    let problem: unknown = null;
    try {
      await gate.run(
        { address, ...(device ? { device } : {}) },
        async ({ target, credential: given }, tasks, path) => outcomeOf((signed = await check(tasks, target, path, given))),
        {
          timeouts: { connectMs: scan.defaultTimeoutMs, firstByteMs: scan.requestTimeoutMs, totalMs: scan.requestTimeoutMs },
          credentialAttempts: 1,
          ...(credential ? { credential } : { candidates: [] }),
          withoutCredential: async (target, tasks, path) => void (anonymous = await check(tasks, target, path, null)),
        },
      );
    } catch (err) {
      // Refusals of the target itself (networks, ambiguity) are the caller's answer; a device's answer is the check's.
      if (!signed && !anonymous) throw err;
      problem = err;
    }
    if (signed) return { address, device, result: signed, status: statusOf(signed) };
    const result = anonymous!;
    const heldBack = credential && isHttpError(problem) ? HELD_BACK[problem.code ?? ''] : undefined;
    if (!heldBack) return { address, device, result, status: statusOf(result) };
    // The problem names the device before its detail; the check's answer gives the detail alone.
    const detail = isHttpError(problem) ? problem.message.replace(/^.*?: /, '') : '';
    const held = { ...result, error: { code: 'AMT_ERR_UNAUTHORIZED' as const, message: heldBack.message(detail) } };
    return { address, device, result: held, status: result.reachable ? heldBack.status : 'unreachable' };
  };
}
