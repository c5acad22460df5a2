import { createHash, randomBytes } from 'node:crypto';
import type { KeyValueStore } from '../store/key-value-store.js';

interface StoredToken {
  username: string;
  expiresAt: string;
}

export interface IssuedToken {
  token: string;
  expiresAt: string;
}

/**
 * Opaque bearer tokens: 32 random bytes, stored only as their SHA-256 so that a copy of the
 * data directory yields no usable token. Tokens survive a restart until they expire.
 */
export interface TokenService {
  issue(username: string): Promise<IssuedToken>;
  /** The username a live token belongs to, or null. */
  resolve(token: string): Promise<string | null>;
  revoke(token: string): Promise<void>;
  revokeUser(username: string): Promise<void>;
  /** Removes expired tokens from the store. */
  sweep(): Promise<void>;
}

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

/** A token in memory, its expiry parsed once. */
interface LiveToken {
  username: string;
  expiresAtMs: number;
}

export function createTokenService(store: KeyValueStore, ttlSeconds: number, now: () => number = Date.now): TokenService {
  // Keyed by the token itself (memory only), so a request costs no hash; the store keeps only digests.
  const cache = new Map<string, LiveToken>();
  const byDigest = new Map<string, string>();
  const remember = (token: string, record: StoredToken): LiveToken => {
    const live = { username: record.username, expiresAtMs: Date.parse(record.expiresAt) };
    cache.set(token, live);
    byDigest.set(digest(token), token);
    return live;
  };
  const forget = (key: string) => {
    const token = byDigest.get(key);
    if (token !== undefined) cache.delete(token);
    byDigest.delete(key);
  };
  // A token revoked through another instance of a cluster stops working here too (new ones are read on first use).
  store.onRemoteChange<StoredToken>((key, record) => {
    if (!record) forget(key);
  });
  return {
    async issue(username) {
      const token = randomBytes(32).toString('base64url');
      const record: StoredToken = { username: username.toLowerCase(), expiresAt: new Date(now() + ttlSeconds * 1000).toISOString() };
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
      if (!(live.expiresAtMs > now())) {
        forget(digest(token));
        await store.del(digest(token));
        return null;
      }
      return live.username;
    },
    async revoke(token) {
      forget(digest(token));
      await store.del(digest(token));
    },
    async revokeUser(username) {
      const name = username.toLowerCase();
      const doomed: string[] = [];
      for await (const [key, record] of store.entries<StoredToken>()) if (record.username === name) doomed.push(key);
      for (const key of doomed) forget(key);
      await store.batch(doomed.map((key) => ({ type: 'del' as const, key })));
    },
    async sweep() {
      const doomed: string[] = [];
      for await (const [key, record] of store.entries<StoredToken>()) if (!(Date.parse(record.expiresAt) > now())) doomed.push(key);
      for (const key of doomed) forget(key);
      await store.batch(doomed.map((key) => ({ type: 'del' as const, key })));
    },
  };
}
