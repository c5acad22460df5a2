/**
 * Digest nonces per device, shared by every task a worker thread runs so that a device answers one
 * 401 per nonce rather than one per request. Bounded: the least recently used entry goes first.
 */
import { openDigestSession, type DigestSession } from './digest-auth.js';
import type { DigestChallenge } from './digest-challenge.js';

export class DigestNonceCache {
  readonly #entries = new Map<string, DigestSession>();

  constructor(readonly maxEntries = 4096) {}

  /** The session for a device key (`host:port`), refreshed as most recently used. */
  get(key: string): DigestSession | undefined {
    const session = this.#entries.get(key);
    if (session) {
      this.#entries.delete(key);
      this.#entries.set(key, session);
    }
    return session;
  }

  /** Starts a new session from a fresh challenge, replacing any previous one. */
  open(key: string, challenge: DigestChallenge): DigestSession {
    const session = openDigestSession(challenge);
    this.#entries.delete(key);
    this.#entries.set(key, session);
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
    return session;
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** The cache of this worker thread (module state: one per thread). */
export const workerNonceCache = new DigestNonceCache(4096);
