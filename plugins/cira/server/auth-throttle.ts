/**
 * Bounds device sign-in attempts. Each attempt is counted when it starts (as a failure until it
 * proves otherwise), so parallel guesses see each other. Its delay is the larger of:
 * - the failures of its own user name from its address: after `freeFailures`, `delayStepMs` more
 *   each, at most `maxDelayMs`; a success clears that name's count at that address only;
 * - the failures of every name from its address: after `addressFreeFailures`, `delayStepMs` more
 *   each, at most `addressMaxDelayMs` (lower: what a healthy device behind a NAT address shared with
 *   a guesser pays). It only decays with the window; no success clears it.
 * At most `maxConcurrentPerAddress` attempts of one address wait at once; more are refused unchecked.
 * Nothing refuses an address for its failures: many devices may share one NAT address, and a healthy
 * one must still get in. O(1) per attempt; at most `maxAddresses` addresses and as many
 * address+name pairs tracked (the oldest forgotten first).
 */
export interface AuthThrottleOptions {
  freeFailures: number;
  delayStepMs: number;
  maxDelayMs: number;
  windowSeconds: number;
  addressFreeFailures: number;
  addressMaxDelayMs: number;
  maxConcurrentPerAddress: number;
  maxAddresses?: number;
}

export interface SignInAttempt {
  /** How long to wait before checking the password. */
  readonly delayMs: number;
  /** The outcome; only the first call counts. */
  settle(ok: boolean): void;
}

export interface AuthThrottle {
  /** Starts (and counts) an attempt; null when too many of this address are waiting already. */
  begin(address: string, username: string): SignInAttempt | null;
}

interface Failures {
  count: number;
  since: number;
}

/** Failure counts by key within a window, the least recently counted forgotten first beyond `max`. */
class FailureCounts {
  private readonly entries = new Map<string, Failures>();
  constructor(
    private readonly windowMs: number,
    private readonly max: number,
    private readonly now: () => number,
  ) {}
  count(key: string): number {
    const entry = this.entries.get(key);
    if (entry && this.now() - entry.since > this.windowMs) this.entries.delete(key);
    return this.entries.get(key)?.count ?? 0;
  }
  add(key: string, n: number): void {
    const entry = this.count(key) > 0 ? this.entries.get(key)! : { count: 0, since: this.now() };
    entry.count = Math.max(0, entry.count + n);
    this.entries.delete(key);
    if (entry.count > 0) this.entries.set(key, entry);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
  clear(key: string): void {
    this.entries.delete(key);
  }
}

export function createAuthThrottle(options: AuthThrottleOptions, now: () => number = Date.now): AuthThrottle {
  const max = options.maxAddresses ?? 10_000;
  const byName = new FailureCounts(options.windowSeconds * 1000, max, now);
  const byAddress = new FailureCounts(options.windowSeconds * 1000, max, now);
  const waiting = new Map<string, number>();
  const delay = (failures: number, free: number, cap: number) => Math.min(cap, Math.max(0, failures - free) * options.delayStepMs);
  return {
    begin(address, username) {
      const inFlight = waiting.get(address) ?? 0;
      if (inFlight >= options.maxConcurrentPerAddress) return null;
      waiting.set(address, inFlight + 1);
      const nameKey = `${address}\u0000${username}`;
      const delayMs = Math.max(
        delay(byName.count(nameKey), options.freeFailures, options.maxDelayMs),
        delay(byAddress.count(address), options.addressFreeFailures, options.addressMaxDelayMs),
      );
      byName.add(nameKey, 1);
      byAddress.add(address, 1);
      let settled = false;
      return {
        delayMs,
        settle(ok) {
          if (settled) return;
          settled = true;
          const left = (waiting.get(address) ?? 1) - 1;
          if (left > 0) waiting.set(address, left);
          else waiting.delete(address);
          if (!ok) return;
          byName.clear(nameKey);
          byAddress.add(address, -1);
        },
      };
    },
  };
}
