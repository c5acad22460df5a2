/**
 * Slows down repeated failed device sign-ins from one address: after `freeFailures` within the
 * window, each answer waits `delayStepMs` more, at most `maxDelayMs`. It never refuses outright:
 * many devices may share one NAT address, and a healthy one must still get in. O(1) per address,
 * at most `maxAddresses` tracked (the oldest forgotten first).
 */
export interface AuthThrottleOptions {
  freeFailures: number;
  delayStepMs: number;
  maxDelayMs: number;
  windowSeconds: number;
  maxAddresses?: number;
}

export interface AuthThrottle {
  delayMs(address: string): number;
  failed(address: string): void;
  succeeded(address: string): void;
}

export function createAuthThrottle(options: AuthThrottleOptions, now: () => number = Date.now): AuthThrottle {
  const failures = new Map<string, { count: number; since: number }>();
  const maxAddresses = options.maxAddresses ?? 10_000;
  const current = (address: string) => {
    const entry = failures.get(address);
    if (entry && now() - entry.since > options.windowSeconds * 1000) {
      failures.delete(address);
      return undefined;
    }
    return entry;
  };
  return {
    delayMs(address) {
      const counted = (current(address)?.count ?? 0) - options.freeFailures;
      return counted > 0 ? Math.min(options.maxDelayMs, counted * options.delayStepMs) : 0;
    },
    failed(address) {
      const entry = current(address) ?? { count: 0, since: now() };
      entry.count++;
      failures.delete(address);
      failures.set(address, entry);
      if (failures.size > maxAddresses) failures.delete(failures.keys().next().value!);
    },
    succeeded(address) {
      failures.delete(address);
    },
  };
}
