import { hash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AccessRevokedEvent, PluginAuth } from '../../core/plugin-api.js';
import { createNetworkMatcher, peerAddress } from '../../core/net/network-matcher.js';

/** The permission a Basic caller needs (a core permission, CONTRACT section 2). */
export const MPS_PERMISSION = 'mps:read';
/** The permission that lets a caller remove any caller's subscriptions. */
export const MPS_MANAGE_PERMISSION = 'mps:manage';

/** Who a SOAP request runs for. */
export interface SoapCaller {
  /** What the caller's enumeration contexts and subscriptions belong to: `user:<id>` (the user's immutable id), or `address:<ip>` in client-address mode. */
  key: string;
  /** For log lines: the user name, or `address:<ip>`. */
  name: string;
  /** Holds `mps:manage`: may remove any caller's subscriptions. */
  manageAll: boolean;
}

/** The outcome of authenticating a SOAP caller. */
export type AuthOutcome =
  | { ok: true; caller: SoapCaller }
  | { ok: false; status: 401 }
  | { ok: false; status: 429; retryAfterSeconds: number };

/** Decides whether a request may reach the SOAP service (CONTRACT section 8). */
export interface ClientAuth {
  authorize(req: IncomingMessage): Promise<AuthOutcome>;
  /** Forgets what it remembered of a user whose access was revoked. */
  revoked(event: AccessRevokedEvent): void;
}

export interface ClientAuthOptions {
  mode: 'basic' | 'none';
  allowedClients: string[];
  now?: () => number;
}

const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 1000;
/** How a sign-in through this door is named in audit records, log lines and metrics. */
export const SOAP_DOOR = 'soap';

function basicCredentials(header: string | undefined): { username: string; password: string } | null {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]{1,1400})\s*$/i.exec(header ?? '')?.[1];
  if (!encoded) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon <= 0 ? null : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * HTTP Basic against the gateway's users, through the kernel's sign-in (one throttle with the REST
 * login, counted from each attempt's start, every failure audited and logged). A successful check
 * is remembered for 30 s under a salted hash of the header (scrypt per check), and forgotten at once
 * when its user's access is revoked. In `none` mode, the client address against `allowedClients`.
 */
export function createClientAuth(auth: PluginAuth, options: ClientAuthOptions): ClientAuth {
  const now = options.now ?? Date.now;
  if (options.mode === 'none') {
    const allowed = createNetworkMatcher(options.allowedClients);
    return {
      async authorize(req) {
        const address = peerAddress(req.socket.remoteAddress);
        const caller = { key: `address:${address}`, name: `address:${address}`, manageAll: false };
        return allowed(address) ? { ok: true, caller } : { ok: false, status: 401 };
      },
      revoked: () => undefined,
    };
  }

  // Keyed by a salted hash so that the cache holds no credential. A one-shot hash, not an HMAC:
  // the digest never leaves the process, and createHmac cost more than the rest of the check.
  const salt = randomBytes(32).toString('base64');
  const cacheKey = (header: string) => hash('sha256', salt + header, 'base64');
  const verified = new Map<string, { caller: SoapCaller; userId: string; until: number }>();
  // Requests with the same header while it is being checked wait for that one check: a client's
  // parallel requests with its right password are one sign-in, not a burst the throttle refuses.
  const checking = new Map<string, Promise<AuthOutcome>>();

  const check = async (key: string, credentials: { username: string; password: string }, address: string): Promise<AuthOutcome> => {
    const result = await auth.signIn({ ...credentials, address, door: SOAP_DOOR });
    if (result.outcome === 'refused') return { ok: false, status: 429, retryAfterSeconds: result.retryAfterSeconds };
    if (result.outcome === 'failure' || !result.user.permissions.includes(MPS_PERMISSION)) return { ok: false, status: 401 };
    const caller = { key: `user:${result.user.id}`, name: result.user.username, manageAll: result.user.permissions.includes(MPS_MANAGE_PERMISSION) };
    verified.set(key, { caller, userId: result.user.id, until: now() + CACHE_TTL_MS });
    if (verified.size > CACHE_MAX) verified.delete(verified.keys().next().value!);
    return { ok: true, caller };
  };

  return {
    async authorize(req) {
      const header = req.headers.authorization;
      if (!header) return { ok: false, status: 401 };
      // Only a header that was parsed and verified before can be in the cache.
      const key = cacheKey(header);
      const cached = verified.get(key);
      if (cached && cached.until > now()) return { ok: true, caller: cached.caller };
      verified.delete(key);
      const credentials = basicCredentials(header);
      if (!credentials) return { ok: false, status: 401 };
      // Keyed by header and address: a check under way from one address is no answer for another.
      const address = peerAddress(req.socket.remoteAddress);
      const flight = `${key}\u0000${address}`;
      const pending = checking.get(flight);
      if (pending) return pending;
      const running = check(key, credentials, address).finally(() => checking.delete(flight));
      checking.set(flight, running);
      return running;
    },
    revoked(event) {
      // Basic callers hold no token: a sign-out elsewhere is not theirs; anything else about the user is.
      if (event.reason === 'signed-out') return;
      for (const [key, entry] of verified) if (entry.userId === event.userId) verified.delete(key);
    },
  };
}
