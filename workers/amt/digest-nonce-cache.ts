/**
 * Digest nonces per device, shared by every task a worker thread runs so that a device answers one
 * 401 per nonce rather than one per request.
 *
 * A session is lent to one request at a time (`take`, then `give` back once the device answered):
 * requests on one nonce then reach the device one after the other, with `nc` in order. Shared
 * between requests in flight, a later `nc` can overtake an earlier one on another connection, and
 * the device refuses the overtaken one as a replay. A request that finds no idle session asks the
 * device for a nonce of its own (an unsigned request: no login attempt).
 *
 * Bounded: a few idle sessions per device, and the least recently used device goes first.
 */
import type { DigestSession } from './digest-auth.js';

/** Idle sessions kept per device: enough for a burst of reads at once, few enough to stay fresh. */
const IDLE_PER_DEVICE = 4;

export class DigestNonceCache {
  readonly #idle = new Map<string, DigestSession[]>();

  constructor(
    readonly maxEntries = 4096,
    readonly idlePerDevice = IDLE_PER_DEVICE,
  ) {}

  /** Lends the most recently returned idle session of a device (`host:port`) to one request, if any. */
  take(key: string): DigestSession | undefined {
    const sessions = this.#idle.get(key);
    const session = sessions?.pop();
    if (sessions && sessions.length === 0) this.#idle.delete(key);
    return session;
  }

  /** Returns a session after the device answered the request that used it (or a fresh one from a 401). */
  give(key: string, session: DigestSession): void {
    const sessions = this.#idle.get(key) ?? [];
    this.#idle.delete(key);
    sessions.push(session);
    if (sessions.length > this.idlePerDevice) sessions.splice(0, sessions.length - this.idlePerDevice);
    this.#idle.set(key, sessions);
    while (this.#idle.size > this.maxEntries) {
      const oldest = this.#idle.keys().next().value as string;
      this.#idle.delete(oldest);
    }
  }

  /** Idle sessions of a device. */
  idle(key: string): number {
    return this.#idle.get(key)?.length ?? 0;
  }

  delete(key: string): void {
    this.#idle.delete(key);
  }

  /** Devices with idle sessions. */
  get size(): number {
    return this.#idle.size;
  }
}

/** The cache of this worker thread (module state: one per thread). */
export const workerNonceCache = new DigestNonceCache(4096);
