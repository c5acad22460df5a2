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
