import { createHash, randomBytes } from 'node:crypto';
import type { KeyValueStore } from '../store/key-value-store.js';

interface StoredToken {
  /** The user's immutable id: the token is the user's, not its name's. Absent in tokens issued before ids, which no longer hold. */
  userId?: string;
  username: string;
  expiresAt: string;
}

export interface IssuedToken {
  token: string;
  expiresAt: string;
}

/** Who a token was issued to. */
export interface TokenHolder {
  id: string;
  username: string;
}

/**
 * Opaque bearer tokens: 32 random bytes, stored only as their SHA-256 so that a copy of the
 * data directory yields no usable token. Tokens survive a restart until they expire. A token is
 * bound to its user's id, so a user deleted and created again under the same name does not inherit
 * it. The SHA-256 is also the token's id (`tokenId`): revocations name tokens by it, never by the
 * token itself.
 */
export interface TokenService {
  issue(user: TokenHolder): Promise<IssuedToken>;
  /** The id of the user a live token belongs to, or null. */
  resolve(token: string): Promise<string | null>;
  /** Revokes one token; returns its id. */
  revoke(token: string): Promise<string>;
  /** Revokes every token of the user; returns their ids. */
  revokeUser(userId: string): Promise<string[]>;
  /** Removes expired tokens from the store. */
  sweep(): Promise<void>;
}

/** A token's id: its SHA-256, as stored (no use as a token). */
export const tokenId = (token: string): string => createHash('sha256').update(token).digest('base64url');
const digest = tokenId;

/** A token in memory, its expiry parsed once. */
interface LiveToken {
  userId: string | undefined;
  expiresAtMs: number;
}

export function createTokenService(store: KeyValueStore, ttlSeconds: number, now: () => number = Date.now): TokenService {
  // Keyed by the token itself (memory only), so a request costs no hash; the store keeps only digests.
  const cache = new Map<string, LiveToken>();
  const byDigest = new Map<string, string>();
  const remember = (token: string, record: StoredToken): LiveToken => {
    const live = { userId: record.userId, expiresAtMs: Date.parse(record.expiresAt) };
    cache.set(token, live);
    byDigest.set(digest(token), token);
    return live;
  };
  const forget = (key: string) => {
    const token = byDigest.get(key);
    if (token !== undefined) cache.delete(token);
    byDigest.delete(key);
  };
  const revokeWhere = async (doomedIf: (record: StoredToken) => boolean): Promise<string[]> => {
    const doomed: string[] = [];
    for await (const [key, record] of store.entries<StoredToken>()) if (doomedIf(record)) doomed.push(key);
    for (const key of doomed) forget(key);
    await store.batch(doomed.map((key) => ({ type: 'del' as const, key })));
    return doomed;
  };
  return {
    async issue(user) {
      const token = randomBytes(32).toString('base64url');
      const record: StoredToken = { userId: user.id, username: user.username.toLowerCase(), expiresAt: new Date(now() + ttlSeconds * 1000).toISOString() };
      await store.put(digest(token), record);
      remember(token, record);
      return { token, expiresAt: record.expiresAt };
    },
    async resolve(token) {
      if (!token || token.length > 256) return null;
      let live = cache.get(token);
      if (!live) {
        const record = await store.get<StoredToken>(digest(token));
        if (!record) return null;
        live = remember(token, record);
      }
      if (!(live.expiresAtMs > now()) || live.userId === undefined) {
        forget(digest(token));
        await store.del(digest(token));
        return null;
      }
      return live.userId;
    },
    async revoke(token) {
      const id = digest(token);
      forget(id);
      await store.del(id);
      return id;
    },
    revokeUser: (userId) => revokeWhere((record) => record.userId === userId),
    sweep: () => revokeWhere((record) => !(Date.parse(record.expiresAt) > now()) || record.userId === undefined).then(() => undefined),
  };
}
