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

/**
 * A throttle whose counts may be kept elsewhere (a cluster's database, so that every instance counts
 * the same attempts): beginning and ending an attempt are asynchronous.
 */
export interface SharedLoginThrottle {
  begin(client: string, username: string): Promise<SharedLoginAttempt | { retryAfterSeconds: number }>;
}

/** An attempt of a {@link SharedLoginThrottle}: as a {@link LoginAttempt}, its end written before it resolves. */
export interface SharedLoginAttempt extends Omit<LoginAttempt, 'end'> {
  end(): Promise<void>;
}

/** A throttle kept in this process's memory, as a {@link SharedLoginThrottle}. */
export function inMemory(throttle: LoginThrottle): SharedLoginThrottle {
  return {
    async begin(client, username) {
      const attempt = throttle.begin(client, username);
      if ('retryAfterSeconds' in attempt) return attempt;
      return { delayMs: attempt.delayMs, succeeded: () => attempt.succeeded(), unchecked: () => attempt.unchecked(), end: async () => attempt.end() };
    },
  };
}

/**
 * Seconds until fewer than `max` failures (times, oldest first), the `pending` attempts counted as
 * failures, remain in the window; 0 when already fewer. Pending attempts end within seconds, so a
 * refusal they alone cause says 1.
 */
function blockedFor(list: readonly number[], max: number, pending: number, windowMs: number, now: number): number {
  if (list.length + pending < max) return 0;
  if (list.length < max) return 1;
  const retryAt = list[list.length - max]! + windowMs;
  return Math.max(1, Math.ceil((retryAt - now) / 1000));
}

/** What the throttle knows of a name at an address when an attempt begins: failures within the window (times, oldest first) and attempts under way. */
export interface ThrottleState {
  now: number;
  nameFailures: readonly number[];
  addressFailures: readonly number[];
  pendingForName: number;
  pendingForAddress: number;
  /** With `nameMaxFailures`: the name's failures from every address, and its attempts under way from every address. */
  everywhere?: { failures: readonly number[]; pending: number };
}

/** The throttle's limits with their defaults filled in. */
export interface ThrottleLimits {
  windowMs: number;
  freeFailures: number;
  maxFailures: number;
  addressMax: number;
  nameConcurrency: number;
  addressConcurrency: number;
  delayStepMs: number;
  /** Failures of a name from every address before it is refused everywhere; undefined: no such bound. */
  nameEverywhereMax: number | undefined;
}

export function throttleLimits(options: LoginThrottleOptions): ThrottleLimits {
  return {
    windowMs: options.windowSeconds * 1000,
    freeFailures: options.freeFailures,
    maxFailures: options.maxFailures,
    // The default ceiling stays within what the schema allows an explicit one (1,000 failures kept per address).
    addressMax: options.addressMaxFailures ?? Math.max(options.maxFailures, Math.min(1000, options.maxFailures * 10)),
    nameConcurrency: options.maxConcurrentPerName ?? 2,
    addressConcurrency: options.maxConcurrentPerAddress ?? 10,
    delayStepMs: options.delayStepMs,
    nameEverywhereMax: options.nameMaxFailures,
  };
}

/**
 * The throttle's one rule, wherever its counts are kept (in memory, or in the cluster's database):
 * refused with the seconds to retry after, or admitted after a delay that grows with the failures.
 */
export function throttleDecision(limits: ThrottleLimits, state: ThrottleState): { retryAfterSeconds: number } | { delayMs: number } {
  const { pendingForName, pendingForAddress } = state;
  if (pendingForName >= limits.nameConcurrency || pendingForAddress >= limits.addressConcurrency) return { retryAfterSeconds: 1 };
  const blocked = Math.max(
    blockedFor(state.addressFailures, limits.addressMax, pendingForAddress, limits.windowMs, state.now),
    blockedFor(state.nameFailures, limits.maxFailures, pendingForName, limits.windowMs, state.now),
    limits.nameEverywhereMax !== undefined && state.everywhere
      ? blockedFor(state.everywhere.failures, limits.nameEverywhereMax, state.everywhere.pending, limits.windowMs, state.now)
      : 0,
  );
  if (blocked > 0) return { retryAfterSeconds: blocked };
  const counted = state.nameFailures.length + pendingForName - limits.freeFailures + 1;
  return { delayMs: counted > 0 ? counted * limits.delayStepMs : 0 };
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

/** The key of a name at an address: a NUL cannot occur in an address, so it is unambiguous; names as sign-in matches them. */
export const throttlePair = (client: string, username: string): string => `${client}\u0000${userKey(username)}`;

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
  const limits = throttleLimits(options);
  const maxKeys = options.maxClients ?? 10_000;
  const perName = failureWindow(limits.windowMs, maxKeys, limits.maxFailures, now);
  const perAddress = failureWindow(limits.windowMs, maxKeys, limits.addressMax, now);
  const everywhereMax = limits.nameEverywhereMax;
  const perNameEverywhere = everywhereMax === undefined ? undefined : failureWindow(limits.windowMs, maxKeys, everywhereMax, now);
  const busyNames = inFlightCounter();
  const busyAddresses = inFlightCounter();
  const busyNamesEverywhere = inFlightCounter();
  return {
    begin(client, username) {
      const key = throttlePair(client, username);
      const name = userKey(username);
      const verdict = throttleDecision(limits, {
        now: now(),
        nameFailures: perName.recent(key),
        addressFailures: perAddress.recent(client),
        pendingForName: busyNames.get(key),
        pendingForAddress: busyAddresses.get(client),
        everywhere: perNameEverywhere && { failures: perNameEverywhere.recent(name), pending: busyNamesEverywhere.get(name) },
      });
      if ('retryAfterSeconds' in verdict) return verdict;
      busyNames.add(key);
      busyAddresses.add(client);
      busyNamesEverywhere.add(name);
      let ok = false;
      let ended = false;
      return {
        delayMs: verdict.delayMs,
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
