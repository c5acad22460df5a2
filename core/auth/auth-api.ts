/** The authentication a plugin gets as `ctx.auth` (part of the public plugin contract, re-exported by plugin-api.ts). */
import type { AuthenticatedUser } from '../http/route-api.js';

/** A password sign-in through the kernel's sign-in throttle (see {@link PluginAuth.signIn}). */
export interface SignInRequest {
  username: string;
  password: string;
  /** The client's address as the plugin's listener saw it: attempts are counted per address and per name. */
  address: string;
  /** Names the way in (`soap`, `activation`, ...) in audit records, log lines and metrics; at most 32 of `a-z0-9-`. */
  door: string;
}

/** How a sign-in ended: `refused` means the password was not checked at all (answer 429 with `Retry-After`). */
export type SignInResult =
  | { outcome: 'success'; user: AuthenticatedUser }
  | { outcome: 'failure' }
  | { outcome: 'refused'; retryAfterSeconds: number };

/**
 * Bounds of an {@link AttemptThrottle} (see {@link PluginAuth.attemptThrottle}). Failures count within
 * a sliding window of `windowSeconds`, per client and name together, per client, and (with
 * `nameMaxFailures`) per name from every client.
 */
export interface AttemptThrottleOptions {
  /** Failures of one name from one client before each further attempt waits `delayStepMs` more. */
  freeFailures: number;
  /** Failures of one name from one client within the window before that pair is refused. */
  maxFailures: number;
  windowSeconds: number;
  /** Added wait per failure past `freeFailures` (0: refuse only). */
  delayStepMs: number;
  /** Failures from one client, all names together, before every attempt from it is refused (default 10 × maxFailures, at most 1,000). */
  addressMaxFailures?: number;
  /**
   * Failures of one name from every client together before every attempt at that name is refused.
   * Default: no such bound. For secrets that belong to a thing (a device's password, a one-time
   * code), not for user accounts: anyone could lock a user out with it. Since 1.6.0.
   */
  nameMaxFailures?: number;
  /** Attempts for one name from one client under way at once (default 2). */
  maxConcurrentPerName?: number;
  /** Attempts from one client under way at once, all names together (default 10). */
  maxConcurrentPerAddress?: number;
  /** Keys tracked at most per kind (default 10,000); the oldest are forgotten first. Each key holds at most the failures that can still decide a refusal. */
  maxClients?: number;
}

/**
 * The kernel's attempt throttle (the one its sign-in uses): each attempt counts as a failure from the
 * moment it begins until it is marked a success, so parallel guesses see each other.
 */
export interface AttemptThrottle {
  /** Starts (and counts) an attempt by `client` (an address) at `name`, or refuses it with the seconds to retry after. */
  begin(client: string, name: string): ThrottledAttempt | { retryAfterSeconds: number };
}

/** One attempt under way. End it exactly once (in a `finally`): it then counts as a failure unless it succeeded. */
export interface ThrottledAttempt {
  /** Milliseconds to wait before checking the secret. */
  readonly delayMs: number;
  /** The secret was right: clears the failures of this name from this client (the client's and the name's ceiling counts stay). */
  succeeded(): void;
  /** The secret was never checked (the peer that checks it did not answer): ends without a failure or a success. */
  unchecked(): void;
  /** Releases the attempt's slot; records a failure unless `succeeded()` or `unchecked()` was called. Idempotent. */
  end(): void;
}

/** Authentication services for plugins that speak protocols other than bearer JSON. */
export interface PluginAuth {
  /** Resolves a bearer token to its user, or null when it is unknown, expired or revoked. */
  verifyToken(token: string): Promise<AuthenticatedUser | null>;
  /**
   * Checks a user name and password through the kernel's one sign-in throttle, the same as
   * `POST /api/auth/login`'s: each attempt counts as a failure from its start until its password
   * proves right (per client address and user name, and per address), so parallel guesses gain
   * nothing; past the free failures attempts are delayed, then refused (`refused`, with the seconds
   * to retry after) without checking the password. Every attempt publishes `SignInAttempted` (the
   * audit trail records it, failures aggregated) and refusals are logged, once per address and door
   * a minute. Every way a plugin lets users sign in with a password must use this. Since 1.4.0.
   */
  signIn(request: SignInRequest): Promise<SignInResult>;
  /**
   * Checks a username and password. Deprecated since 1.4.0: use {@link signIn}, which counts the
   * attempt for the client's address. This one goes through the same throttle, counted under the
   * plugin's name instead of a client address, so one caller's guesses slow every caller of the plugin.
   * @deprecated
   */
  verifyPassword(username: string, password: string): Promise<AuthenticatedUser | null>;
  /**
   * A throttle of the kernel's sign-in machinery, of the plugin's own, for secrets that are not a
   * gateway user's password (a device's password an agent shows, a code typed to a device): count
   * each attempt when it starts, refuse past the bounds without checking. The plugin answers a refusal
   * (a coded error, its audit) and logs it. Each call makes a new throttle; make one at registration.
   * Since 1.6.0.
   */
  attemptThrottle(options: AttemptThrottleOptions): AttemptThrottle;
  /** The id of a bearer token (not usable as a token): what `AccessRevoked` names revoked tokens by. Since 1.4.0. */
  tokenId(token: string): string;
  /** The user with this id as stored now, or null once it was deleted (a new user of the same name has another id). Since 1.4.0. */
  userById(id: string): Promise<AuthenticatedUser | null>;
  /** Every permission known to this gateway (core and enabled plugins). */
  allPermissions(): string[];
  /**
   * The user of this name as stored now (its effective permissions), or null when there is none.
   * For what outlives a request, prefer {@link userById}: a name can be deleted and created again.
   */
  currentUser(username: string): Promise<AuthenticatedUser | null>;
}
