/**
 * Runs a device task for a known device: inside the allowed networks only, its endpoint and pinned
 * certificate, the credentials the sign-in memory allows (the known working one first, none the
 * device refused, failed logins kept below its lockout), and a failure turned into a problem the
 * client can act on. Every device operation of every plugin passes here.
 */
import { isHttpError, type AmtSiteSettings, type Logger, type SiteSettings, type WorkerPool } from '../../../core/plugin-api.js';
import type { DeviceTarget, TaskCredential } from '../../../workers/tasks/task-types.js';
import { REDIRECTION_PORTS, type CredentialVault, type Device, type DeviceAccess, type DeviceOperationCompletedEvent, type DeviceAccessOptions, type DeviceRegistry, type DeviceRoute, type DeviceRouter, type DeviceTasks, type TaskOutcome } from '../api.js';
import type { SignInMemory, SignInPause, SignInReport } from '../sign-in/sign-in-memory.js';
import { memoryKey } from '../sign-in/sign-in-key.js';
import { deviceProblem, DeviceProblems } from './device-problems.js';
import { noteLegacyTls } from './legacy-tls-notice.js';
import type { NetworkGuard } from './device-networks.js';
import type { DeviceTurns } from './device-turns.js';

/** Failed logins one credential may cause in one operation: one re-authentication on a fresh nonce. */
export const FAILURES_PER_CREDENTIAL = 2;

export interface DeviceAccessDeps {
  devices: DeviceRegistry;
  vault: CredentialVault;
  signIn: SignInMemory;
  networks: NetworkGuard;
  /** One connection per device at a time, within the sockets the gateway may hold. */
  turns: DeviceTurns;
}

/**
 * Where an operation's tasks run: the worker pool, or, for a device reached through a channel (its
 * CIRA tunnel), this thread within the route's bound, since the channel cannot cross to a worker.
 */
export function tasksFor(pool: WorkerPool, route: DeviceRoute | null): DeviceTasks {
  // A device task waits on its device nearly all its time: bounded by the device turns, not by the pool's CPU slots.
  if (!route || !('channel' in route)) return { run: (task, input, runOptions) => pool.run(task, input, { ...runOptions, waitsOnDevice: true }) };
  return { run: (task, input, runOptions) => route.schedule(() => pool.runInProcess(task, input, runOptions)) };
}

/** Speaks HTTP to a device that has its HTTP port open, as the scan's interrogation does; TLS otherwise. */
function usesTls(device: Device, amt: AmtSiteSettings): boolean {
  if (device.openPorts.includes(amt.ports.http)) return false;
  if (device.openPorts.includes(amt.ports.https)) return true;
  return device.tls;
}

export function createDeviceAccess(
  { devices, vault, signIn, networks, turns }: DeviceAccessDeps,
  options: DeviceAccessOptions & {
    amt: AmtSiteSettings;
    tlsTrust: SiteSettings['deviceTls'];
    pool: WorkerPool;
    logger?: Logger;
    router?: () => DeviceRouter | null;
    /** Told of every operation's end, for metrics. */
    completed?: (event: DeviceOperationCompletedEvent) => void;
  },
): DeviceAccess {
  const { amt } = options;
  const service = options.service ?? 'management';
  const lanPort = (tls: boolean) => (service === 'redirection' ? (tls ? REDIRECTION_PORTS.tls : REDIRECTION_PORTS.plain) : tls ? amt.ports.https : amt.ports.http);

  /** The device's address on the local network, unless a route (its CIRA tunnel) names another way in. */
  const targetOf = (device: Readonly<Device>, route: DeviceRoute | null): DeviceTarget => {
    const tls = route ? route.tls : usesTls(device, amt);
    return {
      // Through a channel the address only labels the device: no socket goes there.
      address: route && !('channel' in route) ? route.address : device.ipAddress,
      port: route ? route.port : lanPort(tls),
      tls,
      timeouts: { connectMs: options.connectTimeoutMs, firstByteMs: options.requestTimeoutMs, totalMs: options.requestTimeoutMs },
      tlsTrust: options.tlsTrust,
      pinnedFingerprint: device.tlsFingerprint ?? null,
      ...(route && 'channel' in route ? { channel: route.channel } : {}),
    };
  };

  /** Pins the certificate on first contact (a mismatch never replaces the pin), remembers the working credential. */
  const learn = async (deviceId: string, outcome: TaskOutcome, credentialId: string | null): Promise<void> => {
    const current = devices.get(deviceId);
    if (!current) return;
    if (options.logger) noteLegacyTls(options.logger, current.ipAddress, outcome.tlsProtocol);
    const patch: Partial<Device> = {};
    if (outcome.tlsFingerprint && !current.tlsFingerprint) patch.tlsFingerprint = outcome.tlsFingerprint;
    if (credentialId && (current.credentialId !== credentialId || current.authStatus !== 'ok')) {
      patch.credentialId = credentialId;
      patch.authStatus = 'ok';
    }
    if (Object.keys(patch).length > 0) await devices.update(deviceId, patch);
  };

  /** Marks a device whose sign-ins are paused, so lists show why it is not being managed. */
  const markPaused = async (device: Device, pause: SignInPause): Promise<never> => {
    if (devices.get(device.id)?.authStatus !== 'locked-out-risk') await devices.update(device.id, { authStatus: 'locked-out-risk' });
    throw DeviceProblems.signInPaused(device, pause.detail);
  };

  const unsealOrSkip = (id: string) =>
    vault.unseal(id).catch((err: unknown) => {
      // A credential deleted since the list was taken is skipped; anything else (a wrong master key) is not.
      if (isHttpError(err) && err.status === 404) return null;
      throw err;
    });

  const access: DeviceAccess = {
    async run(device, operation, given) {
      const route = (await options.router?.()?.(device, service)) ?? null;
      // allowedNetworks bounds where sockets go: a device reached through its tunnel is not reached at its address.
      if (!route) networks.check(device.ipAddress);
      const target = targetOf(device, route);
      const tasks = tasksFor(options.pool, route);
      // Turns are per socket destination: the address, or the device itself through its tunnel.
      const turnKey = route && 'channel' in route ? `channel:${device.id}` : target.address;
      const candidates = given ? [given.id] : vault.list().map((c) => c.id);
      if (candidates.length === 0) throw DeviceProblems.noCredentials();
      // Concurrent operations on one device take turns on its failed-login budget rather than fail.
      const plan = await signIn.planWhenFree(memoryKey(signIn, device, device.ipAddress, route !== null), candidates, {
        preferred: device.credentialId ?? null,
        maxAttempts: given ? FAILURES_PER_CREDENTIAL : options.credentialAttempts,
      });
      if (plan.pause && plan.busy) throw DeviceProblems.signInPaused(device, plan.pause.detail);
      if (plan.pause) return markPaused(device, plan.pause);
      if (plan.credentialIds.length === 0) throw DeviceProblems.everyCredentialRefused(device, plan.skippedRefused.length);
      const refused: string[] = [];
      const report: SignInReport = { refused, failedLogins: 0, succeeded: null, lockedOut: false };
      let failuresLeft = plan.maxFailures;
      try {
        for (const id of plan.credentialIds) {
          if (failuresLeft <= 0) break;
          const unsealed: TaskCredential | null = given?.id === id ? given : await unsealOrSkip(id);
          if (!unsealed) continue;
          const { maxFailedLogins: _bound, ...credential } = unsealed;
          const outcome = await turns.run(turnKey, () => operation({ target, credential: { ...credential, maxFailedLogins: Math.min(FAILURES_PER_CREDENTIAL, failuresLeft) } }, tasks));
          const failed = outcome.failedLogins ?? (!outcome.ok && outcome.error.code === 'AMT_ERR_UNAUTHORIZED' ? 1 : 0);
          report.failedLogins += failed;
          failuresLeft -= failed;
          // A SOAP Fault is a well-formed answer to a signed request: the credential works.
          const signedIn = outcome.ok || outcome.error.code === 'AMT_ERR_FAULT';
          if (signedIn) report.succeeded = id;
          await learn(device.id, outcome, signedIn ? id : null);
          if (outcome.ok) return { value: outcome as Extract<typeof outcome, { ok: true }>, credential };
          if (outcome.error.code === 'AMT_ERR_UNAUTHORIZED') {
            refused.push(id);
            continue;
          }
          if (outcome.error.code === 'AMT_ERR_LOCKED_OUT') {
            report.lockedOut = true;
            throw DeviceProblems.lockedOut(device);
          }
          throw deviceProblem(device, outcome.error);
        }
        throw DeviceProblems.unauthorized(device, refused.length);
      } finally {
        await plan.settle(report);
      }
    },
  };
  return options.completed ? timedAccess(access, options.completed) : access;
}

/** Reports each operation's kind (the first task it runs), outcome (`ok` or its problem code) and duration. */
function timedAccess(access: DeviceAccess, completed: (event: DeviceOperationCompletedEvent) => void): DeviceAccess {
  return {
    async run(device, operation, given) {
      const started = performance.now();
      let kind: string | undefined;
      let outcome = 'ok';
      try {
        return await access.run(device, (input, tasks) => operation(input, { run: (task, taskInput, runOptions) => ((kind ??= task), tasks.run(task, taskInput, runOptions)) }), given);
      } catch (err) {
        outcome = isHttpError(err) && typeof err.code === 'string' ? err.code : 'error';
        throw err;
      } finally {
        completed({ operation: kind ?? 'none', outcome, durationSeconds: (performance.now() - started) / 1000 });
      }
    },
  };
}
