/**
 * The Digest session each device's last operation ended on, kept for its next one: a warm operation
 * signs its first request on the nonce it finds here instead of asking the device for a new one (one
 * request fewer, as a client on one kept-alive connection would). Safe because the gate holds the
 * device's turn across each operation: operations on a device follow each other, and so do the
 * nonce counts. Kept per device endpoint (address and port, or a tunnel's channel), per credential
 * and its version: a session proven with a password says nothing of another. Nothing here is secret
 * (nonces and counts travel in the clear); bounded, least recently used first out.
 */
import type { DeviceTarget, DigestCarry } from '../../../workers/tasks/task-types.js';

export interface DigestSessions {
  /** The session for the endpoint, if its last operation used this credential (at this version). */
  take(target: DeviceTarget, credentialId: string, version: string | undefined): DigestCarry | null;
  /** What the operation ended on (null: nothing to keep). */
  keep(target: DeviceTarget, credentialId: string, version: string | undefined, digest: DigestCarry | null): void;
  readonly size: number;
}

/** The endpoint a nonce belongs to: what the worker's transport knows the device by. */
const endpointOf = (target: DeviceTarget): string => (target.channel ? target.channel.key : `${target.address}:${target.port}`);

export function createDigestSessions(maxEntries = 16_384): DigestSessions {
  const kept = new Map<string, { credentialId: string; version: string | undefined; digest: DigestCarry }>();
  return {
    take(target, credentialId, version) {
      const key = endpointOf(target);
      const entry = kept.get(key);
      if (!entry) return null;
      kept.delete(key);
      return entry.credentialId === credentialId && entry.version === version && version !== undefined ? entry.digest : null;
    },
    keep(target, credentialId, version, digest) {
      const key = endpointOf(target);
      kept.delete(key);
      if (!digest || version === undefined) return;
      kept.set(key, { credentialId, version, digest });
      if (kept.size > maxEntries) kept.delete(kept.keys().next().value!);
    },
    get size() {
      return kept.size;
    },
  };
}
