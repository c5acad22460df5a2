import { hash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { PluginAuth } from '../../core/plugin-api.js';
import { createNetworkMatcher, peerAddress } from './client-networks.js';

/** The permission a Basic caller needs (a core permission, CONTRACT section 2). */
export const MPS_PERMISSION = 'mps:read';

/** The outcome of authenticating a SOAP caller. */
export type AuthOutcome =
  | { ok: true; /** A username, or `address:<ip>` in client-address mode. */ caller: string }
  | { ok: false; status: 401 }
  | { ok: false; status: 429; retryAfterSeconds: number };

/** Decides whether a request may reach the SOAP service (CONTRACT section 8). */
export interface ClientAuth {
  authorize(req: IncomingMessage): Promise<AuthOutcome>;
}

export interface ClientAuthOptions {
  mode: 'basic' | 'none';
  allowedClients: string[];
  now?: () => number;
}

const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 1000;
const FAILURE_WINDOW_MS = 15 * 60_000;
const MAX_FAILURES = 10;
const MAX_TRACKED_CLIENTS = 10_000;

function basicCredentials(header: string | undefined): { username: string; password: string } | null {
  const encoded = /^Basic\s+([A-Za-z0-9+/=]{1,1400})\s*$/i.exec(header ?? '')?.[1];
  if (!encoded) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon <= 0 ? null : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * HTTP Basic against the gateway's users (scrypt per check, so a successful check is remembered
 * for 30 s under a salted hash of the header, and repeated failures from one address are refused with
 * 429 for a while), or, in `none` mode, the client address against `allowedClients`.
 */
export function createClientAuth(auth: PluginAuth, options: ClientAuthOptions): ClientAuth {
  const now = options.now ?? Date.now;
  if (options.mode === 'none') {
    const allowed = createNetworkMatcher(options.allowedClients);
    return {
      async authorize(req) {
        const address = peerAddress(req.socket.remoteAddress);
        return allowed(address) ? { ok: true, caller: `address:${address}` } : { ok: false, status: 401 };
      },
    };
  }

  // Keyed by a salted hash so that the cache holds no credential. A one-shot hash, not an HMAC:
  // the digest never leaves the process, and createHmac cost more than the rest of the check.
  const salt = randomBytes(32).toString('base64');
  const cacheKey = (header: string) => hash('sha256', salt + header, 'base64');
  const verified = new Map<string, { caller: string; until: number }>();
  const failures = new Map<string, number[]>();

  const recentFailures = (client: string) => {
    const tracked = failures.get(client);
    if (!tracked) return [];
    const list = tracked.filter((t) => t > now() - FAILURE_WINDOW_MS);
    if (list.length === 0) failures.delete(client);
    else failures.set(client, list);
    return list;
  };
  const fail = (client: string) => {
    const list = recentFailures(client);
    list.push(now());
    failures.delete(client);
    failures.set(client, list);
    if (failures.size > MAX_TRACKED_CLIENTS) failures.delete(failures.keys().next().value!);
  };

  return {
    async authorize(req) {
      const client = peerAddress(req.socket.remoteAddress);
      const recent = recentFailures(client);
      if (recent.length >= MAX_FAILURES) {
        return { ok: false, status: 429, retryAfterSeconds: Math.max(1, Math.ceil((recent[0]! + FAILURE_WINDOW_MS - now()) / 1000)) };
      }
      const header = req.headers.authorization;
      if (!header) return { ok: false, status: 401 };
      // Only a header that was parsed and verified before can be in the cache.
      const key = cacheKey(header);
      const cached = verified.get(key);
      if (cached && cached.until > now()) return { ok: true, caller: cached.caller };
      verified.delete(key);
      const credentials = basicCredentials(header);
      if (!credentials) return { ok: false, status: 401 };

      const user = await auth.verifyPassword(credentials.username, credentials.password);
      if (!user) {
        fail(client);
        return { ok: false, status: 401 };
      }
      if (!user.permissions.includes(MPS_PERMISSION)) return { ok: false, status: 401 };
      verified.set(key, { caller: user.username, until: now() + CACHE_TTL_MS });
      if (verified.size > CACHE_MAX) verified.delete(verified.keys().next().value!);
      return { ok: true, caller: user.username };
    },
  };
}
