/**
 * Reads a tunnelled device like a scanned one (firmware version, provisioning state and mode,
 * hostname, domain) through its tunnel with the stored device credentials, a few devices at a time.
 * Sign-ins go through device access, so through the device's sign-in memory like every other path:
 * credentials the device refused are not tried again and failed logins stay below its lockout. When
 * that memory (or an empty vault) gives no credential, the device is read without one.
 */
import { isHttpError, type CancelToken, type Logger, type SiteSettings, type WorkerPool } from '../../core/plugin-api.js';
import type { Device, DeviceAccess, DeviceChannelRoute, DeviceRegistry, DeviceTasks, ProvisioningState, TaskOutcome } from 'amt-gateway/devices';
import type { DeviceTarget, InterrogateOutput, TaskCredential } from '../../workers/tasks/task-types.js';

export interface TunnelInterrogatorParts {
  devices: DeviceRegistry;
  /** Device operations with the sign-in memory (bounded attempts per read, set by its creator). */
  access: DeviceAccess;
  pool: WorkerPool;
  site: SiteSettings;
  logger: Logger;
  /** The route into the device's tunnel, or null when it has none now. */
  route: (device: Readonly<Device>) => Promise<DeviceChannelRoute | null>;
  /** Devices read at once (default 4); more wait their turn. */
  concurrency?: number;
  timeoutMs?: number;
}

/** Problems of device access after which another try would not sign in either: nothing to retry. */
const FINAL_PROBLEMS = new Set(['GW_ERR_DEVICE_UNAUTHORIZED', 'GW_ERR_SIGN_IN_PAUSED', 'GW_ERR_NO_CREDENTIALS']);

/** An interrogation as a device operation's outcome, for device access to learn from. */
function outcomeOf(result: InterrogateOutput): TaskOutcome {
  const meta = { tlsFingerprint: result.tlsFingerprint, failedLogins: result.failedLogins, tlsProtocol: result.tlsProtocol };
  if (result.authStatus === 'ok') return { ok: true, ...meta };
  const error = result.error ?? { code: 'AMT_ERR_UNAUTHORIZED' as const, message: 'the device refused the credential' };
  return { ok: false, error: result.authStatus === 'unauthorized' ? { ...error, code: 'AMT_ERR_UNAUTHORIZED' } : error, ...meta };
}

export interface TunnelInterrogator {
  /** Queues a read of the device (once, however often asked before it runs). */
  request(deviceId: string): void;
  stop(): void;
}

/** The patch a read gives the device: what it learned, never erasing what an earlier read knew. */
function patchFrom(device: Readonly<Device>, result: InterrogateOutput, tls: boolean): Partial<Device> {
  const version = result.serverVersion && (!result.firmwareVersion || result.serverVersion.startsWith(result.firmwareVersion)) ? result.serverVersion : result.firmwareVersion;
  const patch: Partial<Device> = { authStatus: result.authStatus, tls };
  if (version) patch.firmwareVersion = version;
  if (result.provisioningStateName) patch.provisioningState = result.provisioningStateName as ProvisioningState;
  if (result.provisioningModeName) patch.provisioningMode = result.provisioningModeName;
  if (result.hostname) patch.hostname = result.hostname;
  if (result.domain) patch.domain = result.domain;
  if (result.authStatus === 'ok' && result.credentialId) patch.credentialId = result.credentialId;
  if (result.tlsFingerprint && !device.tlsFingerprint && result.error?.code !== 'AMT_ERR_TLS_PIN_MISMATCH') patch.tlsFingerprint = result.tlsFingerprint;
  return patch;
}

export function createTunnelInterrogator(parts: TunnelInterrogatorParts): TunnelInterrogator {
  const { devices, access, pool, site, logger } = parts;
  const concurrency = parts.concurrency ?? 4;
  const timeoutMs = parts.timeoutMs ?? 15_000;
  /** A read still unsettled after this is cancelled and its slot freed (the task's own bounds should end it first). */
  const readBoundMs = 3 * timeoutMs + 15_000;
  const retryMs = 30_000;
  const queue = new Set<string>();
  const attempts = new Map<string, number>();
  let running = 0;
  let stopped = false;

  const interrogate = (tasks: DeviceTasks, target: Pick<DeviceTarget, 'address' | 'port' | 'tls' | 'pinnedFingerprint' | 'channel'>, credential: TaskCredential | null, cancel: CancelToken) =>
    tasks.run(
      'interrogate',
      {
        address: target.address,
        ports: { ...site.amt.ports, http: target.port, https: target.port },
        tls: target.tls,
        credentials: credential ? [credential] : [],
        // One credential per run: the failed logins device access allows it (one re-authentication).
        maxAttempts: Math.max(1, credential?.maxFailedLogins ?? 1),
        timeouts: { connectMs: timeoutMs, firstByteMs: timeoutMs, totalMs: timeoutMs },
        tlsTrust: site.deviceTls,
        pinnedFingerprint: target.pinnedFingerprint,
        ...(target.channel ? { channel: target.channel } : {}),
        readUuid: false,
      },
      { cancel },
    );

  const read = async (deviceId: string, cancel: CancelToken): Promise<void> => {
    const device = devices.get(deviceId);
    if (!device) return;
    const route = await parts.route(device);
    if (!route) return;
    let last: { result: InterrogateOutput; tls: boolean } | undefined;
    let problem: unknown = null;
    try {
      await access.run(device, async ({ target, credential }, tasks) => {
        const result = await interrogate(tasks, target, credential, cancel);
        last = { result, tls: target.tls };
        return outcomeOf(result);
      });
    } catch (err) {
      problem = err;
    }
    // No credential was tried (none stored, every one refused earlier, sign-ins paused): what the device tells without one.
    if (!last && isHttpError(problem) && FINAL_PROBLEMS.has(problem.code ?? '')) {
      const inProcess: DeviceTasks = { run: (task, input, runOptions) => route.schedule(() => pool.runInProcess(task, input, runOptions)) };
      const target = { address: device.ipAddress, port: route.port, tls: route.tls, channel: route.channel, pinnedFingerprint: device.tlsFingerprint ?? null };
      last = { result: await interrogate(inProcess, target, null, cancel), tls: route.tls };
    }
    const current = devices.get(deviceId);
    if (current && last) {
      const patch = patchFrom(current, last.result, last.tls);
      // Device access keeps authStatus (ok, or locked-out-risk while sign-ins are paused); a read without credentials knows less.
      if (problem === null || current.authStatus === 'locked-out-risk') delete patch.authStatus;
      else if (isHttpError(problem) && problem.code === 'GW_ERR_DEVICE_UNAUTHORIZED') patch.authStatus = 'unauthorized';
      await devices.update(deviceId, patch);
    }
    if (problem === null && !last?.result.error) return;
    // Refused credentials stay refused until they change; anything else (a timeout at a busy moment) is worth another try.
    if (isHttpError(problem) && FINAL_PROBLEMS.has(problem.code ?? '')) {
      logger.info('CIRA device read through its tunnel without signing in', { deviceId, code: problem.code });
      return;
    }
    const code = isHttpError(problem) ? problem.code : (last?.result.error?.code ?? (problem as Error | null)?.message);
    throw new Error(`read incomplete (${code})`);
  };

  /** The read, cancelled and failed when it has not settled within `readBoundMs`, so a stuck one frees its slot. */
  const bounded = (deviceId: string): Promise<void> => {
    const cancel = pool.createCancelToken();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        cancel.cancel();
        reject(new Error(`the read did not settle within ${readBoundMs} ms`));
      }, readBoundMs);
    });
    return Promise.race([read(deviceId, cancel), bound]).finally(() => clearTimeout(timer));
  };

  const pump = (): void => {
    while (!stopped && running < concurrency && queue.size > 0) {
      const deviceId = queue.values().next().value as string;
      queue.delete(deviceId);
      running++;
      bounded(deviceId)
        .then(() => attempts.delete(deviceId))
        .catch((err: Error) => {
          logger.warn('CIRA device read through its tunnel failed', { deviceId, error: err.message });
          // One more try later: a read that failed at a busy moment (a storm of tunnels) should not leave the device unread.
          const tried = (attempts.get(deviceId) ?? 0) + 1;
          attempts.set(deviceId, tried);
          if (tried < 2) setTimeout(() => interrogator.request(deviceId), retryMs).unref();
          else attempts.delete(deviceId);
        })
        .finally(() => {
          running--;
          pump();
        });
    }
  };

  const interrogator: TunnelInterrogator = {
    request(deviceId) {
      if (stopped) return;
      queue.add(deviceId);
      pump();
    },
    stop() {
      stopped = true;
      queue.clear();
    },
  };
  return interrogator;
}
