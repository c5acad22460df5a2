/**
 * Slows down, then refuses, repeated failed logins. Failures count per client address and user name,
 * so that guesses at one name (a made-up one included) do not lock out the other users behind the
 * same address (NAT, proxy): after `freeFailures` failures each further attempt waits `delayStepMs`
 * more, and at `maxFailures` within the window that name gets 429 from that address until the
 * oldest failure leaves the window. A looser ceiling, `addressMaxFailures` failures from one address
 * whatever the names, refuses every login from it (spraying many names).
 */
export interface LoginThrottle {
  /** Milliseconds to wait before answering, or a refusal with the seconds to retry after. */
  check(client: string, username: string): { delayMs: number } | { retryAfterSeconds: number };
  failed(client: string, username: string): void;
  /** Clears the failures of this name from this address; the address's ceiling count stays. */
  succeeded(client: string, username: string): void;
}

export interface LoginThrottleOptions {
  freeFailures: number;
  maxFailures: number;
  windowSeconds: number;
  delayStepMs: number;
  /** Failures from one address, all names together, before every login from it is refused (default 10 × maxFailures). */
  addressMaxFailures?: number;
  /** Keys tracked at most per kind; the oldest are forgotten first. */
  maxClients?: number;
}

/** Failure times per key within a sliding window, bounded in keys. */
/** @param keep the most failures a decision looks at: older ones are dropped. */
function failureWindow(windowMs: number, maxKeys: number, keep: number, now: () => number) {
  const failures = new Map<string, number[]>();
  const recent = (key: string) => {
    const cutoff = now() - windowMs;
    const list = (failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length === 0) failures.delete(key);
    else failures.set(key, list);
    return list;
  };
  return {
    recent,
    /** Seconds until fewer than `max` failures remain in the window, or 0 when already fewer. */
    blockedFor(key: string, max: number): number {
      const list = recent(key);
      if (list.length < max) return 0;
      const retryAt = list[list.length - max]! + windowMs;
      return Math.max(1, Math.ceil((retryAt - now()) / 1000));
    },
    add(key: string) {
      const list = recent(key);
      // Bounded: only the newest failures that can still decide a refusal are kept.
      list.push(now());
      failures.delete(key);
      failures.set(key, list.length > keep ? list.slice(-keep) : list);
      if (failures.size > maxKeys) failures.delete(failures.keys().next().value!);
    },
    clear: (key: string) => void failures.delete(key),
  };
}

export function createLoginThrottle(options: LoginThrottleOptions, now: () => number = Date.now): LoginThrottle {
  const windowMs = options.windowSeconds * 1000;
  const maxKeys = options.maxClients ?? 10_000;
  // The default ceiling stays within what the schema allows an explicit one (1,000 failures kept per address).
  const addressMax = options.addressMaxFailures ?? Math.max(options.maxFailures, Math.min(1000, options.maxFailures * 10));
  const perName = failureWindow(windowMs, maxKeys, options.maxFailures, now);
  const perAddress = failureWindow(windowMs, maxKeys, addressMax, now);
  // A NUL cannot occur in an address, so the pair key is unambiguous.
  const pair = (client: string, username: string) => `${client}\u0000${username}`;
  return {
    check(client, username) {
      const key = pair(client, username);
      const blocked = Math.max(perAddress.blockedFor(client, addressMax), perName.blockedFor(key, options.maxFailures));
      if (blocked > 0) return { retryAfterSeconds: blocked };
      const counted = perName.recent(key).length - options.freeFailures + 1;
      return { delayMs: counted > 0 ? counted * options.delayStepMs : 0 };
    },
    failed(client, username) {
      perName.add(pair(client, username));
      perAddress.add(client);
    },
    succeeded(client, username) {
      perName.clear(pair(client, username));
    },
  };
}
