/**
 * Slows down, then refuses, repeated failed logins from one client address.
 * After `freeFailures` failures each further attempt waits `delayStepMs` more; at `maxFailures`
 * within the window the client gets 429 until the oldest failure leaves the window.
 */
export interface LoginThrottle {
  /** Milliseconds to wait before answering, or a refusal with the seconds to retry after. */
  check(client: string): { delayMs: number } | { retryAfterSeconds: number };
  failed(client: string): void;
  succeeded(client: string): void;
}

export interface LoginThrottleOptions {
  freeFailures: number;
  maxFailures: number;
  windowSeconds: number;
  delayStepMs: number;
  /** Clients tracked at most; the oldest are forgotten first. */
  maxClients?: number;
}

export function createLoginThrottle(options: LoginThrottleOptions, now: () => number = Date.now): LoginThrottle {
  const failures = new Map<string, number[]>();
  const maxClients = options.maxClients ?? 10_000;
  const recent = (client: string) => {
    const cutoff = now() - options.windowSeconds * 1000;
    const list = (failures.get(client) ?? []).filter((t) => t > cutoff);
    if (list.length === 0) failures.delete(client);
    else failures.set(client, list);
    return list;
  };
  return {
    check(client) {
      const list = recent(client);
      if (list.length >= options.maxFailures) {
        const retryAt = list[list.length - options.maxFailures]! + options.windowSeconds * 1000;
        return { retryAfterSeconds: Math.max(1, Math.ceil((retryAt - now()) / 1000)) };
      }
      const counted = list.length - options.freeFailures + 1;
      return { delayMs: counted > 0 ? counted * options.delayStepMs : 0 };
    },
    failed(client) {
      const list = recent(client);
      list.push(now());
      failures.delete(client);
      failures.set(client, list);
      if (failures.size > maxClients) failures.delete(failures.keys().next().value!);
    },
    succeeded(client) {
      failures.delete(client);
    },
  };
}
