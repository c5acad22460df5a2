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
  /** Ids of the user's oldest tokens revoked to stay within the per-user bound. */
  evicted: string[];
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
 * token itself. A user holds at most `maxPerUser` live tokens: a sign-in beyond revokes its oldest.
 */
export interface TokenService {
  issue(user: TokenHolder): Promise<IssuedToken>;
  /** The id of the user a live token belongs to, or null. */
  resolve(token: string): Promise<string | null>;
  /** Revokes one token; returns its id. */
  revoke(token: string): Promise<string>;
  /** Revokes every token of the user; returns their ids. */
  revokeUser(userId: string): Promise<string[]>;
  /** Removes expired tokens from the store (and, the first time, learns which live tokens each user holds). */
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

export function createTokenService(store: KeyValueStore, ttlSeconds: number, now: () => number = Date.now, maxPerUser = 100): TokenService {
  // Keyed by the token itself (memory only), so a request costs no hash; the store keeps only digests.
  const cache = new Map<string, LiveToken>();
  const byDigest = new Map<string, string>();
  /** Each user's live tokens (digest -> expiry), for the per-user bound; filled by the first sweep. */
  const held = new Map<string, Map<string, number>>();
  let indexed = false;
  const hold = (userId: string, key: string, expiresAtMs: number) => {
    let own = held.get(userId);
    if (!own) held.set(userId, (own = new Map()));
    own.set(key, expiresAtMs);
  };
  const release = (key: string) => {
    for (const [userId, own] of held) if (own.delete(key) && own.size === 0) held.delete(userId);
  };
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
  const revokeWhere = async (doomedIf: (record: StoredToken, key: string) => boolean): Promise<string[]> => {
    const doomed: string[] = [];
    for await (const [key, record] of store.entries<StoredToken>()) if (doomedIf(record, key)) doomed.push(key);
    for (const key of doomed) {
      forget(key);
      release(key);
    }
    await store.batch(doomed.map((key) => ({ type: 'del' as const, key })));
    return doomed;
  };
  /** The user's oldest tokens beyond `maxPerUser - 1`, to make room for one more. */
  const oldestBeyondBound = (userId: string): string[] => {
    const own = [...(held.get(userId) ?? new Map<string, number>())].sort((a, b) => a[1] - b[1]);
    return own.slice(0, Math.max(0, own.length - (maxPerUser - 1))).map(([key]) => key);
  };
  return {
    async issue(user) {
      const token = randomBytes(32).toString('base64url');
      const record: StoredToken = { userId: user.id, username: user.username.toLowerCase(), expiresAt: new Date(now() + ttlSeconds * 1000).toISOString() };
      const evicted = oldestBeyondBound(user.id);
      await store.batch([...evicted.map((key) => ({ type: 'del' as const, key })), { type: 'put', key: digest(token), value: record }]);
      for (const key of evicted) {
        forget(key);
        release(key);
      }
      remember(token, record);
      hold(user.id, digest(token), Date.parse(record.expiresAt));
      return { token, expiresAt: record.expiresAt, evicted };
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
        release(digest(token));
        await store.del(digest(token));
        return null;
      }
      return live.userId;
    },
    async revoke(token) {
      const id = digest(token);
      forget(id);
      release(id);
      await store.del(id);
      return id;
    },
    revokeUser: (userId) => revokeWhere((record) => record.userId === userId),
    async sweep() {
      // The first sweep (at start, before any sign-in) learns the live tokens; later ones keep the index by themselves.
      const learn = !indexed;
      indexed = true;
      await revokeWhere((record, key) => {
        const expired = !(Date.parse(record.expiresAt) > now()) || record.userId === undefined;
        if (!expired && learn) hold(record.userId!, key, Date.parse(record.expiresAt));
        return expired;
      });
    },
  };
}
