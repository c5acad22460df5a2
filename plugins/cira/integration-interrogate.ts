/**
 * Reads a tunnelled device like a scanned one (firmware version, provisioning state and mode,
 * hostname, domain), a few devices at a time: through the device gate (`read`), so through its
 * tunnel when that is proven to be the device, with the device's sign-in memory, credential order
 * and turn like every other path; the gate merges what was read into the device record. When the
 * memory (or an empty vault) gives no credential, the gate reads the device without one.
 */
import { isHttpError, type CancelToken, type Logger, type WorkerPool } from '../../core/plugin-api.js';
import type { DeviceGate, DeviceRegistry } from 'amt-gateway/devices';

export interface TunnelInterrogatorParts {
  devices: DeviceRegistry;
  gate: DeviceGate;
  pool: Pick<WorkerPool, 'createCancelToken'>;
  logger: Logger;
  /** Devices read at once (default 4); more wait their turn. */
  concurrency?: number;
  timeoutMs?: number;
}

/** Problems of the gate after which another try would not sign in either: nothing to retry. */
const FINAL_PROBLEMS = new Set(['GW_ERR_DEVICE_UNAUTHORIZED', 'GW_ERR_SIGN_IN_PAUSED', 'GW_ERR_NO_CREDENTIALS', 'GW_ERR_DEVICE_NO_PATH']);

export interface TunnelInterrogator {
  /** Queues a read of the device (once, however often asked before it runs). */
  request(deviceId: string): void;
  /** Stops reading: queued reads are dropped, those under way cancelled and waited for (they write the device record). */
  stop(): Promise<void>;
}

export function createTunnelInterrogator(parts: TunnelInterrogatorParts): TunnelInterrogator {
  const { devices, gate, pool, logger } = parts;
  const concurrency = parts.concurrency ?? 4;
  const timeoutMs = parts.timeoutMs ?? 15_000;
  /** A read still unsettled after this is cancelled and its slot freed (the task's own bounds should end it first). */
  const readBoundMs = 3 * timeoutMs + 15_000;
  const retryMs = 30_000;
  const queue = new Set<string>();
  const attempts = new Map<string, number>();
  let running = 0;
  let stopped = false;
  const underWay = new Map<Promise<void>, CancelToken>();

  const read = async (deviceId: string, cancel: CancelToken): Promise<void> => {
    const device = devices.get(deviceId);
    if (!device) return;
    const { output, problem } = await gate.read(
      { address: device.ipAddress, device },
      {
        // At most 3 credentials per read (AMT locks out repeated failures); the sign-in memory may allow fewer.
        credentialAttempts: 3,
        timeouts: { connectMs: timeoutMs, firstByteMs: timeoutMs, totalMs: timeoutMs },
        readUuid: false,
        // Only through its tunnel: a device whose tunnel is gone or unproven is for scans to read on the LAN.
        via: 'cira',
        cancel,
        record: { kind: 'refresh' },
      },
    );
    if (problem === null && !output?.error) return;
    // Refused credentials stay refused until they change; anything else (a timeout at a busy moment) is worth another try.
    if (isHttpError(problem) && FINAL_PROBLEMS.has(problem.code ?? '')) {
      logger.info('CIRA device read through its tunnel without signing in', { deviceId, code: problem.code });
      return;
    }
    const code = isHttpError(problem) ? problem.code : (output?.error?.code ?? (problem as Error | null)?.message);
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
    const reading = read(deviceId, cancel);
    underWay.set(reading, cancel);
    void reading.catch(() => undefined).finally(() => underWay.delete(reading));
    return Promise.race([reading, bound]).finally(() => clearTimeout(timer));
  };

  const pump = (): void => {
    while (!stopped && running < concurrency && queue.size > 0) {
      const deviceId = queue.values().next().value as string;
      queue.delete(deviceId);
      running++;
      bounded(deviceId)
        .then(() => attempts.delete(deviceId))
        .catch((err: Error) => {
          // A read cut short by shutdown is no failure of the device.
          if (stopped) return;
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
    async stop() {
      stopped = true;
      queue.clear();
      for (const cancel of underWay.values()) cancel.cancel();
      await Promise.allSettled([...underWay.keys()]);
    },
  };
  return interrogator;
}
