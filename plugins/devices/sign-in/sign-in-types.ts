/** The sign-in memory's types: what it remembers of a device, the plans it hands out and what they report. */
import type { SignInSettings } from '../gate-api.js';
export type { SignInSettings };

export interface RefusedCredential {
  credentialId: string;
  /** The credential's version when it was refused; another version is tried again. */
  version: string;
  at: string;
}

/** What is stored per device address. */
export interface SignInRecord {
  address: string;
  /** Failed logins in a row the device has counted from us since the last success, lockout or reset. */
  consecutiveFailures: number;
  lastFailureAt: string | null;
  lastSuccessAt: string | null;
  workingCredential: { credentialId: string; version: string } | null;
  refused: RefusedCredential[];
  /** When the device last answered with its lockout page. */
  lockedOutAt: string | null;
}

export interface SignInPause {
  reason: 'locked-out' | 'budget-spent';
  detail: string;
  /** When sign-ins resume by themselves (a lockout pause); absent when only a success elsewhere or a reset helps. */
  until?: string;
}

/** What one operation did on the device, reported back to the memory. */
export interface SignInReport {
  /** Credentials the device refused, in the order tried. */
  refused: readonly string[];
  /** Failed logins caused (a refused credential may cost two when a retry on a fresh nonce was due). */
  failedLogins: number;
  /** The credential that signed in (a well-formed WS-Management answer), if any. */
  succeeded: string | null;
  /** The device answered with its lockout page. */
  lockedOut: boolean;
}

/** The credentials one operation may try on a device and the failed logins it may cause. */
export interface SignInPlan {
  credentialIds: string[];
  /** At least 1 unless paused. */
  maxFailures: number;
  /** Set when the device must not be signed in to now; then `credentialIds` is empty. */
  pause: SignInPause | null;
  /** The pause is only that operations under way hold the rest of the budget: it ends when they settle. */
  busy: boolean;
  /** Credentials left out because the device refused their current version. */
  skippedRefused: string[];
  /** Records the outcome and gives back the unspent reservation; call exactly once. */
  settle(report: SignInReport): Promise<void>;
}

export interface SignInView extends SignInRecord {
  /** Failed logins in a row allowed before sign-ins stop (threshold minus margin). */
  budget: number;
  /** Of the budget, what is neither spent nor reserved by operations under way. */
  remaining: number;
  pause: SignInPause | null;
}

export interface SignInMemory {
  /**
   * Plans a sign-in: `candidates` in the caller's order, the device's working credential first when
   * `preferred` names it, credentials the device refused in their current version left out, and at
   * most `maxAttempts` failed logins (fewer when the budget is short), reserved until `settle`.
   */
  plan(address: string, candidates: readonly string[], options: PlanOptions): SignInPlan;
  /**
   * As {@link plan}, but while the device's budget is only held by operations under way (`busy`),
   * waits for them to settle and plans again, for at most `waitMs` (default {@link BUSY_WAIT_MS}).
   * Concurrent operations on one device then take turns instead of failing.
   */
  planWhenFree(address: string, candidates: readonly string[], options: PlanOptions & { waitMs?: number }): Promise<SignInPlan>;
  view(address: string): SignInView;
  /** True when the device is locked out or has spent its budget (not merely busy with other sign-ins). */
  paused(address: string): boolean;
  /** Forgets the device's history (an operator who unlocked it, or knows its count was reset). */
  reset(address: string): Promise<void>;
  /**
   * Carries the history kept under `from` over to `to` (a device first known by its address, then by
   * its UUID), merged so that nothing is forgotten: failures in a row add up, refusals join.
   */
  adopt(from: string, to: string): void;
}

/** Told of what the memory sees, for counting (metrics); never of which device. */
export interface SignInObserver {
  /** An operation settled (every one, whatever it did). */
  settled(report: SignInReport): void;
  /** A plan was refused because the device is locked or its budget spent (not merely busy). */
  paused(reason: SignInPause['reason']): void;
}

export interface PlanOptions {
  preferred?: string | null;
  maxAttempts: number;
}
