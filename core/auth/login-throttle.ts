import type { AttemptThrottle, AttemptThrottleOptions, ThrottledAttempt } from './auth-api.js';
import { userKey } from './user-store.js';

/**
 * Slows down, then refuses, repeated failed logins. Failures count per client address and user name,
 * so that guesses at one name (a made-up one included) do not lock out the other users behind the
 * same address (NAT, proxy): after `freeFailures` failures each further attempt waits `delayStepMs`
 * more, and at `maxFailures` within the window that name gets 429 from that address until the
 * oldest failure leaves the window. A looser ceiling, `addressMaxFailures` failures from one address
 * whatever the names, refuses every login from it (spraying many names).
 *
 * An attempt counts from the moment it begins: until it ends it is held as a failure, so parallel
 * guesses cannot all pass the check before any of them failed, and at most `maxConcurrentPerName`
 * attempts per name and `maxConcurrentPerAddress` per address run at once. Names are keyed the way
 * sign-in matches them (case-insensitively), so `ADMIN` shares the count of `admin`.
 *
 * For what is not a user account (a device's password, a one-time code), `nameMaxFailures` also
 * counts a name's failures from every address together (guessing from many addresses gains nothing);
 * user logins leave it off, since anyone could then lock a user out. The public face is
 * `ctx.auth.attemptThrottle` (auth-api.ts), where the interfaces are documented.
 */
export type LoginThrottle = AttemptThrottle;
export type LoginAttempt = ThrottledAttempt;
export type LoginThrottleOptions = AttemptThrottleOptions;

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
    /**
     * Seconds until fewer than `max` failures, the `pending` attempts counted as failures, remain in
     * the window; 0 when already fewer. Pending attempts end within seconds, so a refusal they alone
     * cause says 1.
     */
    blockedFor(key: string, max: number, pending: number): number {
      const list = recent(key);
      if (list.length + pending < max) return 0;
      if (list.length < max) return 1;
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

/** Attempts under way per key; a key leaves the map when its last attempt ends (bounded by the attempts themselves). */
function inFlightCounter() {
  const counts = new Map<string, number>();
  return {
    get: (key: string) => counts.get(key) ?? 0,
    add: (key: string) => void counts.set(key, (counts.get(key) ?? 0) + 1),
    remove(key: string) {
      const left = (counts.get(key) ?? 1) - 1;
      if (left > 0) counts.set(key, left);
      else counts.delete(key);
    },
  };
}

export function createLoginThrottle(options: LoginThrottleOptions, now: () => number = Date.now): LoginThrottle {
  const windowMs = options.windowSeconds * 1000;
  const maxKeys = options.maxClients ?? 10_000;
  // The default ceiling stays within what the schema allows an explicit one (1,000 failures kept per address).
  const addressMax = options.addressMaxFailures ?? Math.max(options.maxFailures, Math.min(1000, options.maxFailures * 10));
  const nameConcurrency = options.maxConcurrentPerName ?? 2;
  const addressConcurrency = options.maxConcurrentPerAddress ?? 10;
  const perName = failureWindow(windowMs, maxKeys, options.maxFailures, now);
  const perAddress = failureWindow(windowMs, maxKeys, addressMax, now);
  const nameMax = options.nameMaxFailures;
  const perNameEverywhere = nameMax === undefined ? undefined : failureWindow(windowMs, maxKeys, nameMax, now);
  const busyNames = inFlightCounter();
  const busyAddresses = inFlightCounter();
  const busyNamesEverywhere = inFlightCounter();
  // A NUL cannot occur in an address, so the pair key is unambiguous.
  const pair = (client: string, username: string) => `${client}\u0000${userKey(username)}`;
  return {
    begin(client, username) {
      const key = pair(client, username);
      const name = userKey(username);
      const pendingForName = busyNames.get(key);
      const pendingForAddress = busyAddresses.get(client);
      if (pendingForName >= nameConcurrency || pendingForAddress >= addressConcurrency) return { retryAfterSeconds: 1 };
      const blocked = Math.max(
        perAddress.blockedFor(client, addressMax, pendingForAddress),
        perName.blockedFor(key, options.maxFailures, pendingForName),
        perNameEverywhere?.blockedFor(name, nameMax!, busyNamesEverywhere.get(name)) ?? 0,
      );
      if (blocked > 0) return { retryAfterSeconds: blocked };
      const counted = perName.recent(key).length + pendingForName - options.freeFailures + 1;
      busyNames.add(key);
      busyAddresses.add(client);
      busyNamesEverywhere.add(name);
      let ok = false;
      let ended = false;
      return {
        delayMs: counted > 0 ? counted * options.delayStepMs : 0,
        succeeded() {
          ok = true;
          perName.clear(key);
        },
        unchecked() {
          ok = true;
        },
        end() {
          if (ended) return;
          ended = true;
          busyNames.remove(key);
          busyAddresses.remove(client);
          busyNamesEverywhere.remove(name);
          if (ok) return;
          perName.add(key);
          perAddress.add(client);
          perNameEverywhere?.add(name);
        },
      };
    },
  };
}
