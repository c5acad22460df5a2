/**
 * Reads a tunnelled device like a scanned one (firmware version, provisioning state and mode,
 * hostname, domain) through its tunnel with the stored device credentials, a few devices at a time.
 */
import type { CancelToken, Logger, SiteSettings, WorkerPool } from '../../core/plugin-api.js';
import type { CredentialVault, Device, DeviceRegistry, DeviceRoute, ProvisioningState } from '../rest-api/api.js';
import type { InterrogateOutput } from '../../workers/tasks/task-types.js';

export interface TunnelInterrogatorParts {
  devices: DeviceRegistry;
  vault: CredentialVault;
  pool: WorkerPool;
  site: SiteSettings;
  logger: Logger;
  /** The relay route into the device's tunnel, or null when it has none now. */
  route: (device: Device) => Promise<DeviceRoute | null>;
  /** Devices read at once (default 4); more wait their turn. */
  concurrency?: number;
  /** Credentials tried at most per device (default 3: AMT locks out repeated failures). */
  maxAttempts?: number;
  timeoutMs?: number;
}

export interface TunnelInterrogator {
  /** Queues a read of the device (once, however often asked before it runs). */
  request(deviceId: string): void;
  /** Waits for the queued and running reads (tests, shutdown). */
  idle(): Promise<void>;
  stop(): void;
}

/** The patch a read gives the device: what it learned, never erasing what an earlier read knew. */
export function patchFrom(device: Device, result: InterrogateOutput, tls: boolean): Partial<Device> {
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
  const { devices, vault, pool, site, logger } = parts;
  const concurrency = parts.concurrency ?? 4;
  const maxAttempts = parts.maxAttempts ?? 3;
  const timeoutMs = parts.timeoutMs ?? 15_000;
  /** A read still unsettled after this is cancelled and its slot freed (the task's own bounds should end it first). */
  const readBoundMs = 3 * timeoutMs + 15_000;
  const retryMs = 30_000;
  const queue = new Set<string>();
  const attempts = new Map<string, number>();
  let running = 0;
  let stopped = false;
  let waiters: Array<() => void> = [];

  const settle = (): void => {
    if (running > 0 || queue.size > 0) return;
    for (const wake of waiters.splice(0)) wake();
  };

  const read = async (deviceId: string, cancel: CancelToken): Promise<void> => {
    const device = devices.get(deviceId);
    if (!device) return;
    const route = await parts.route(device);
    if (!route) return;
    const all = await vault.signInOrder();
    const known = all.filter((c) => c.id === device.credentialId);
    const credentials = [...known, ...all.filter((c) => c.id !== device.credentialId)].slice(0, maxAttempts);
    const result = await pool.run('interrogate', {
      address: route.address,
      ports: { ...site.amt.ports, http: route.port, https: route.port },
      tls: route.tls,
      credentials,
      maxAttempts,
      timeouts: { connectMs: timeoutMs, firstByteMs: timeoutMs, totalMs: timeoutMs },
      tlsTrust: site.deviceTls,
      pinnedFingerprint: device.tlsFingerprint ?? null,
      readUuid: false,
    }, { cancel });
    const current = devices.get(deviceId);
    if (current) await devices.update(deviceId, patchFrom(current, result, route.tls));
    if (!result.error) return;
    // Refused credentials stay refused until they change; anything else (a timeout at a busy moment) is worth another try.
    if (result.authStatus === 'unauthorized') logger.info('CIRA device read through its tunnel refused the credentials', { deviceId, code: result.error.code });
    else throw new Error(`read incomplete (${result.error.code})`);
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
          settle();
        });
    }
  };

  const interrogator: TunnelInterrogator = {
    request(deviceId) {
      if (stopped) return;
      queue.add(deviceId);
      pump();
    },
    idle: () => (running === 0 && queue.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    stop() {
      stopped = true;
      queue.clear();
      settle();
      waiters = [];
    },
  };
  return interrogator;
}
