/**
 * The device gate: the one place that decides whether the gateway may talk to a device now, with
 * which credential, along which path. Every device path passes its one call, `pass`: a scan's
 * reads, diagnostics, power, monitor reads, a CIRA tunnel's reads, a redirection session.
 *
 * `pass` decides, in order: the path (a registered path's proven route, e.g. the device's CIRA
 * tunnel, else its address on the local network, which must be inside the allowed networks);
 * where the tasks run (worker pool, or this thread for a channel) and the TLS pin they check; the
 * sign-in plan from the device's one sign-in memory (whatever the path: credentials the device
 * refused are not tried again, failed logins stay below its lockout) and the credential order (the
 * known working one first); the device's turn (one connection at a time to any device, within the
 * sockets the gateway may hold). Each attempt is one task with one credential; what it proved is
 * learnt (the certificate pinned on first contact, the working credential).
 */
import { isHttpError, type Logger, type WorkerPool } from '../../../core/plugin-api.js';
import type { DeviceOperationInput, TaskCredential } from '../../../workers/tasks/task-types.js';
import type { CredentialVault, Device, DeviceRegistry, DeviceSettings, DeviceTasks, GatePath, GateRunOptions, GateSubject, TaskOutcome } from '../api.js';
import type { SignInMemory, SignInPlan, SignInReport } from '../sign-in/sign-in-memory.js';
import { memoryKey } from '../sign-in/sign-in-key.js';
import { deviceProblem, DeviceProblems } from './device-problems.js';
import { noteLegacyTls } from './legacy-tls-notice.js';
import type { NetworkGuard } from './device-networks.js';
import type { DeviceTurns } from './device-turns.js';
import type { DevicePaths } from './device-paths.js';
import { targetOf, tasksFor } from './gate-target.js';

/** Failed logins one credential may cause in one operation: one re-authentication on a fresh nonce. */
export const FAILURES_PER_CREDENTIAL = 2;

export interface DeviceGateDeps {
  devices: DeviceRegistry;
  vault: CredentialVault;
  signIn: SignInMemory;
  networks: NetworkGuard;
  /** One connection per device at a time, within the sockets the gateway may hold. */
  turns: DeviceTurns;
  paths: DevicePaths;
  settings: DeviceSettings;
  pool: WorkerPool;
  logger?: Logger;
}

export interface DeviceGateCore {
  /** The one call every device operation passes; see the module comment. */
  pass<R extends TaskOutcome>(
    subject: GateSubject,
    operation: (input: DeviceOperationInput, tasks: DeviceTasks, path: GatePath) => Promise<R>,
    options: GateRunOptions,
  ): Promise<{ value: Extract<R, { ok: true }>; credential: TaskCredential }>;
  readonly paths: DevicePaths;
  readonly networks: NetworkGuard;
}

/** A stand-in for an address a scan has not stored yet, for the problems' messages. */
const labelOf = (subject: GateSubject): Device => subject.device ?? ({ id: subject.address, ipAddress: subject.address } as Device);

export function createDeviceGate(deps: DeviceGateDeps): DeviceGateCore {
  const { devices, vault, signIn, networks, turns, paths } = deps;

  /** Pins the certificate on first contact (a mismatch never replaces the pin), remembers the working credential. */
  const learn = async (deviceId: string | undefined, outcome: TaskOutcome, credentialId: string | null, address: string): Promise<void> => {
    if (deps.logger) noteLegacyTls(deps.logger, address, outcome.tlsProtocol);
    const current = deviceId === undefined ? undefined : devices.get(deviceId);
    if (!current) return;
    const patch: Partial<Device> = {};
    if (outcome.tlsFingerprint && !current.tlsFingerprint) patch.tlsFingerprint = outcome.tlsFingerprint;
    if (credentialId && (current.credentialId !== credentialId || current.authStatus !== 'ok')) {
      patch.credentialId = credentialId;
      patch.authStatus = 'ok';
    }
    if (Object.keys(patch).length > 0) await devices.update(deviceId!, patch);
  };

  /** Why no credential may be tried now, marking a paused device so lists show why it is not managed. */
  const heldBack = async (subject: GateSubject, plan: SignInPlan | null): Promise<Error> => {
    const label = labelOf(subject);
    if (!plan) return DeviceProblems.noCredentials();
    if (plan.pause && plan.busy) return DeviceProblems.signInPaused(label, plan.pause.detail);
    if (plan.pause) {
      if (subject.device && devices.get(subject.device.id)?.authStatus !== 'locked-out-risk') await devices.update(subject.device.id, { authStatus: 'locked-out-risk' });
      return DeviceProblems.signInPaused(label, plan.pause.detail);
    }
    return DeviceProblems.everyCredentialRefused(label, plan.skippedRefused.length);
  };

  const unsealOrSkip = (id: string) =>
    vault.unseal(id).catch((err: unknown) => {
      // A credential deleted since the list was taken is skipped; anything else (a wrong master key) is not.
      if (isHttpError(err) && err.status === 404) return null;
      throw err;
    });

  /**
   * The path (a registered path's proven route, else the LAN address inside the allowed networks),
   * the target a task connects to, where tasks run, and the key of the device's turn.
   */
  const choosePath = async (subject: GateSubject, options: GateRunOptions) => {
    const { device } = subject;
    const via = options.via ?? 'any';
    const reached = device && via !== 'lan' ? await paths.reach(device, options.service ?? 'management', options.purpose ?? 'operation', via === 'any' ? undefined : via) : null;
    if (!reached && via !== 'any' && via !== 'lan') throw DeviceProblems.noPath(labelOf(subject), via);
    const route = reached?.route ?? null;
    // allowedNetworks bounds where sockets go: a device reached through its tunnel is not reached at its address.
    if (!route) networks.check(subject.address);
    const target = targetOf({ settings: deps.settings, service: options.service ?? 'management', timeouts: options.timeouts }, subject, route);
    // Turns are per socket destination: the address, or the device itself through its tunnel.
    const turnKey = route && 'channel' in route ? `channel:${device!.id}` : target.address;
    return { route, path: { kind: reached?.kind ?? 'lan' } as GatePath, target, tasks: tasksFor(deps.pool, route), turnKey };
  };

  const pass: DeviceGateCore['pass'] = async (subject, operation, options) => {
    const { device } = subject;
    const { route, path, target, tasks, turnKey } = await choosePath(subject, options);
    const given = options.credential;
    const candidates = given ? [given.id] : (options.candidates ?? vault.list().map((c) => c.id));
    // Concurrent operations on one device take turns on its failed-login budget rather than fail.
    const plan =
      candidates.length === 0
        ? null
        : await signIn.planWhenFree(memoryKey(signIn, device, subject.address, route !== null), candidates, {
            preferred: device?.credentialId ?? null,
            maxAttempts: given ? FAILURES_PER_CREDENTIAL : options.credentialAttempts,
          });
    if (!plan || plan.credentialIds.length === 0) {
      if (options.withoutCredential) await turns.run(turnKey, () => options.withoutCredential!(target, tasks, path));
      await plan?.settle({ refused: [], failedLogins: 0, succeeded: null, lockedOut: false });
      throw await heldBack(subject, plan);
    }
    const refused: string[] = [];
    const report: SignInReport = { refused, failedLogins: 0, succeeded: null, lockedOut: false };
    let failuresLeft = plan.maxFailures;
    try {
      for (const id of plan.credentialIds) {
        if (failuresLeft <= 0) break;
        const unsealed: TaskCredential | null = given?.id === id ? given : await unsealOrSkip(id);
        if (!unsealed) continue;
        const { maxFailedLogins: _bound, ...credential } = unsealed;
        const outcome = await turns.run(turnKey, () => operation({ target, credential: { ...credential, maxFailedLogins: Math.min(FAILURES_PER_CREDENTIAL, failuresLeft) } }, tasks, path));
        const failed = outcome.failedLogins ?? (!outcome.ok && outcome.error.code === 'AMT_ERR_UNAUTHORIZED' ? 1 : 0);
        report.failedLogins += failed;
        failuresLeft -= failed;
        // A SOAP Fault is a well-formed answer to a signed request: the credential works.
        const signedIn = outcome.ok || outcome.error.code === 'AMT_ERR_FAULT';
        if (signedIn) report.succeeded = id;
        await learn(device?.id, outcome, signedIn ? id : null, target.address);
        if (outcome.ok) return { value: outcome as Extract<typeof outcome, { ok: true }>, credential };
        if (outcome.error.code === 'AMT_ERR_UNAUTHORIZED') {
          refused.push(id);
          continue;
        }
        if (outcome.error.code === 'AMT_ERR_LOCKED_OUT') {
          report.lockedOut = true;
          throw DeviceProblems.lockedOut(labelOf(subject));
        }
        throw deviceProblem(labelOf(subject), outcome.error);
      }
      throw DeviceProblems.unauthorized(labelOf(subject), refused.length);
    } finally {
      await plan.settle(report);
    }
  };

  return { pass, paths, networks };
}
