/**
 * The bound on device operations that run on the main thread through CIRA tunnels: at most
 * `concurrency` at once, at most `maxWaiting` queued behind them; beyond, a 503 the client may retry.
 * Each operation is itself bounded in time (its task's timeouts), so a queued one waits a bounded time.
 */
import { HttpError } from '../../core/plugin-api.js';
import { createSemaphore } from '../../core/util/semaphore.js';

export interface TunnelOperationLimits {
  /** Tunnelled device operations running at once on the main thread. */
  concurrency: number;
  /** Operations waiting for a slot; more are refused with 503 GW_ERR_CIRA_BUSY. */
  maxWaiting: number;
}

export interface TunnelOperationBound {
  schedule<T>(operation: () => Promise<T>): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

export function createTunnelOperationBound(limits: TunnelOperationLimits): TunnelOperationBound {
  const semaphore = createSemaphore(limits.concurrency);
  return {
    schedule(operation) {
      if (semaphore.active >= limits.concurrency && semaphore.waiting >= limits.maxWaiting) {
        return Promise.reject(new HttpError(503, 'GW_ERR_CIRA_BUSY', 'Too many device operations are running through CIRA tunnels at once; try again shortly', { expose: true, headers: { 'retry-after': '1' } }));
      }
      return semaphore.run(operation);
    },
    get active() {
      return semaphore.active;
    },
    get waiting() {
      return semaphore.waiting;
    },
  };
}
