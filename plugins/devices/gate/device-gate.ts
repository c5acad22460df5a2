/**
 * The device gate: the one place that decides whether the gateway may talk to a device now, with
 * which credential, along which path. Every device path passes it: power, monitor reads and every
 * other device task (`run`), a scan's reads and a tunnel's (`read`), diagnostics (`check`), a
 * redirection session (`openSession`), a tunnel's proof of identity, and the probes of scans and of
 * the online monitor (which take the same turns, see device-probes.ts).
 *
 * One pass (`pass`) of an operation decides, in this order:
 * 1. the device's turn, held for the whole operation, every credential's attempt included: no other
 *    operation or probe of the gateway reaches the device meanwhile (`turnKeyOf`; device-turns.ts),
 *    and nothing the operation opened (a channel a path opened ahead) outlives it;
 * 2. the path: a registered path's proven route (e.g. the device's CIRA tunnel), else its address on
 *    the local network, which must be inside the allowed networks (an unverified route is no path);
 * 3. where its tasks run (the worker pool, or this thread for a channel) and the TLS trust they check;
 * 4. the sign-in plan from the device's one sign-in memory, whatever the path (credentials the device
 *    refused are not tried again, failed logins stay below its lockout), and the credential order
 *    (the known working one first);
 * 5. one attempt per credential, each unsealed here for its task only and never handed to a plugin;
 *    what an attempt proved is learnt (the certificate pinned on first contact, the working credential).
 */
import { isHttpError, type Logger, type WorkerPool } from '../../../core/plugin-api.js';
import type { TaskCredential } from '../../../workers/tasks/task-types.js';
import type { Device, DeviceRoute, DeviceSettings, GateSubject } from '../api.js';
import type { ManagedCredentialVault } from '../credentials/credential-vault.js';
import type { ManagedDeviceRegistry } from '../registry/device-registry.js';
import type { SignInMemory, SignInPlan, SignInReport } from '../sign-in/sign-in-memory.js';
import { memoryKey } from '../sign-in/sign-in-key.js';
import { deviceProblem, DeviceProblems } from './device-problems.js';
import { noteLegacyTls } from './legacy-tls-notice.js';
import type { NetworkGuard } from './device-networks.js';
import type { DeviceTurns } from './device-turns.js';
import type { DevicePaths } from './device-paths.js';
import { targetOf, tasksFor } from './gate-target.js';
import type { DeviceTasks, GateAttempt, GatePassOptions, GatePath, TaskOutcome } from './gate-types.js';

/** Failed logins one credential may cause in one operation: one re-authentication on a fresh nonce. */
export const FAILURES_PER_CREDENTIAL = 2;

export interface DeviceGateDeps {
  devices: ManagedDeviceRegistry;
  vault: ManagedCredentialVault;
  signIn: SignInMemory;
  networks: NetworkGuard;
  /** One operation per device at a time, within the sockets the gateway may hold. */
  turns: DeviceTurns;
  paths: DevicePaths;
  settings: DeviceSettings;
  pool: WorkerPool;
  logger?: Logger;
}

/** Where an operation goes, once decided: its path, target, and where its tasks run. */
export interface GateRoute {
  path: GatePath;
  route: DeviceRoute | null;
  target: ReturnType<typeof targetOf>;
  tasks: DeviceTasks;
}

export interface DeviceGateCore {
  /** The one call every device operation passes; see the module comment. */
  pass<R extends TaskOutcome>(subject: GateSubject, attempt: GateAttempt<R>, options: GatePassOptions): Promise<{ value: Extract<R, { ok: true }>; credentialId: string }>;
  /** Steps 2 and 3 alone (the caller holds the device's turn). */
  decide(subject: GateSubject, options: Pick<GatePassOptions, 'service' | 'purpose' | 'via' | 'timeouts'>): Promise<GateRoute>;
  readonly paths: DevicePaths;
  readonly networks: NetworkGuard;
  readonly turns: DeviceTurns;
}

/** A stand-in for an address a scan has not stored yet, for the problems' messages. */
const labelOf = (subject: GateSubject): Device => subject.device ?? ({ id: subject.address, ipAddress: subject.address } as Device);

/** Known on the local network: a scan found it there, or the LAN monitor sees it. Its address is its own, not a NAT's. */
export const knownOnLan = (device: Readonly<Device>): boolean => device.lastScanId !== null || (device.connections?.includes('lan') ?? false);

/**
 * The key of the device's turn: its address on the local network, where scans and the online monitor
 * probe it, whatever path this operation takes, so that no path and no probe overlaps another; a device
 * known only through a path (its address a NAT's, which other devices may share) is keyed by itself,
 * unless the operation goes to that address itself (`via` `lan`: what answers there is another machine).
 */
export function turnKeyOf(subject: GateSubject, via?: string): string {
  const { device } = subject;
  if (via === 'lan' || !device || knownOnLan(device)) return subject.address;
  return `device:${device.id}`;
}

/** Closes what the path opened ahead for the operation and it did not take (a spare tunnel channel). */
const releaseAhead = (way: GateRoute | undefined): void => way?.target.channel?.release?.();

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

  const decide: DeviceGateCore['decide'] = async (subject, options) => {
    const { device } = subject;
    const via = options.via ?? 'any';
    const reached = device && via !== 'lan' ? await paths.reach(device, options.service ?? 'management', options.purpose ?? 'operation', via === 'any' ? undefined : via) : null;
    if (!reached && via !== 'any' && via !== 'lan') throw DeviceProblems.noPath(labelOf(subject), via);
    const route = reached?.route ?? null;
    // The allowed networks bound where sockets go: a device reached through its tunnel is not reached at its address.
    if (!route) networks.check(subject.address);
    const target = targetOf({ settings: deps.settings, service: options.service ?? 'management', timeouts: options.timeouts }, subject, route);
    return { path: { kind: reached?.kind ?? 'lan' }, route, target, tasks: tasksFor(deps.pool, route) };
  };

  /** Every credential's attempt, in the device's one turn; settles the plan with what they did. */
  const attempts = async <R extends TaskOutcome>(subject: GateSubject, way: GateRoute, plan: SignInPlan, attempt: GateAttempt<R>, own: TaskCredential | undefined) => {
    const refused: string[] = [];
    const report: SignInReport = { refused, failedLogins: 0, succeeded: null, lockedOut: false };
    let failuresLeft = plan.maxFailures;
    try {
      for (const id of plan.credentialIds) {
        if (failuresLeft <= 0) break;
        const unsealed: TaskCredential | null = own?.id === id ? own : await unsealOrSkip(id);
        if (!unsealed) continue;
        const credential = { ...unsealed, maxFailedLogins: Math.min(FAILURES_PER_CREDENTIAL, failuresLeft) };
        const outcome = await attempt({ target: way.target, credential }, way.tasks, way.path);
        const failed = outcome.failedLogins ?? (!outcome.ok && outcome.error.code === 'AMT_ERR_UNAUTHORIZED' ? 1 : 0);
        report.failedLogins += failed;
        failuresLeft -= failed;
        // A SOAP Fault is a well-formed answer to a signed request: the credential works.
        const signedIn = outcome.ok || outcome.error.code === 'AMT_ERR_FAULT';
        if (signedIn) report.succeeded = id;
        // A caller's own credential is the device's working one only when the vault holds it (a device's bound one).
        const working = signedIn && (own?.id !== id || vault.get(id) !== undefined);
        await learn(subject.device?.id, outcome, working ? id : null, way.target.address);
        if (outcome.ok) return { value: outcome as Extract<R, { ok: true }>, credentialId: id };
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

  /** Steps 2 to 5, in the device's turn. */
  const inTurn = async <R extends TaskOutcome>(subject: GateSubject, attempt: GateAttempt<R>, options: GatePassOptions) => {
    const { device } = subject;
    let way: GateRoute | undefined;
    try {
      way = await decide(subject, options);
      const given = options.credential?.id ?? options.credentialId;
      // The device's own credential (bound to its UUID) first; no other device's ever.
      const bound = device?.uuid ? vault.boundTo(device.uuid)?.id : undefined;
      const shared = options.candidates ?? vault.list().map((c) => c.id);
      const candidates = given !== undefined ? [given] : bound ? [bound, ...shared.filter((id) => id !== bound)] : shared;
      // Concurrent operations on one device take turns on its failed-login budget rather than fail.
      const plan =
        candidates.length === 0
          ? null
          : await signIn.planWhenFree(memoryKey(signIn, device, subject.address, way.route !== null), candidates, {
              preferred: device?.credentialId ?? null,
              maxAttempts: given !== undefined ? FAILURES_PER_CREDENTIAL : options.credentialAttempts,
            });
      if (!plan || plan.credentialIds.length === 0) {
        if (options.withoutCredential) await options.withoutCredential(way.target, way.tasks, way.path);
        await plan?.settle({ refused: [], failedLogins: 0, succeeded: null, lockedOut: false });
        throw await heldBack(subject, plan);
      }
      return await attempts(subject, way, plan, attempt, options.credential);
    } finally {
      releaseAhead(way);
    }
  };

  const pass: DeviceGateCore['pass'] = (subject, attempt, options) => turns.run(turnKeyOf(subject, options.via), () => inTurn(subject, attempt, options));

  return { pass, decide, paths, networks, turns };
}
