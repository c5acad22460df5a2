/**
 * `deviceGate.check`: one diagnostic WS-Management exchange (`wsman-check`) with an address or a
 * stored device, through the gate like every device I/O: its path (a tunnel, or the local network
 * inside the allowed networks), its sign-in memory, its turn, its pin. The credential is the one the
 * caller names by id, unsealed here; when the memory holds it back (refused earlier, the device near
 * its lockout) the exchange is made without it and the problem says why.
 */
import type { DeviceCheckResult, DeviceGate, DeviceSettings } from '../api.js';
import type { DeviceTarget, TaskCredential, WsmanCheckInput, WsmanCheckOutput } from '../../../workers/tasks/task-types.js';
import type { DeviceGateCore } from './device-gate.js';
import type { DeviceTasks, GatePath, TaskOutcome } from './gate-types.js';

function outcomeOf(result: WsmanCheckOutput): TaskOutcome {
  const meta = { tlsFingerprint: result.tlsFingerprint, failedLogins: result.failedLogins, tlsProtocol: result.tlsProtocol };
  if (result.authenticated) return { ok: true, ...meta };
  return { ok: false, error: result.error ?? { code: 'AMT_ERR_CONNECT', message: 'the device did not answer' }, ...meta };
}

export function createDeviceCheck(gate: DeviceGateCore, settings: DeviceSettings): DeviceGate['check'] {
  const { ports } = settings;
  const exchange = (tasks: DeviceTasks, target: DeviceTarget, path: GatePath, credential: TaskCredential | null) => {
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

  return async (subject, { credentialId, timeouts }): Promise<DeviceCheckResult> => {
    let signed: WsmanCheckOutput | undefined;
    let anonymous: WsmanCheckOutput | undefined;
    let problem: unknown = null;
    try {
      await gate.pass(subject, async ({ target, credential }, tasks, path) => outcomeOf((signed = await exchange(tasks, target, path, credential))), {
        timeouts,
        credentialAttempts: 1,
        ...(credentialId !== null ? { credentialId } : { candidates: [] }),
        withoutCredential: async (target, tasks, path) => void (anonymous = await exchange(tasks, target, path, null)),
      });
    } catch (err) {
      // Refusals of the target itself (networks, no path) are the caller's answer; a device's answer is the check's.
      if (!signed && !anonymous) throw err;
      problem = err;
    }
    return signed ? { result: signed, signedIn: true, problem } : { result: anonymous!, signedIn: false, problem };
  };
}
