/**
 * Internal calls between the instances of a cluster, authenticated with a key derived from the
 * master key every instance already holds (HKDF-SHA256, an info string of its own: the key opens
 * nothing else), and bounded in time: a signature covers the method, the path, the sending
 * instance, a timestamp and a nonce, and is accepted within 30 s of its timestamp, once.
 */
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const INFO = 'amt-gateway cluster internal calls v1';
/** How far a signature's time may be from the receiver's clock. */
export const SIGNATURE_WINDOW_MS = 30_000;

/** The header that carries an internal call's signature. */
export const INTERNAL_HEADER = 'x-amtgw-internal';

export function deriveInternalKey(masterKey: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), INFO, 32));
}

const mac = (key: Buffer, parts: string[]) => createHmac('sha256', key).update(parts.join('\n')).digest('base64url');

/** The header value for a call of `method path` from instance `from`. */
export function signInternal(key: Buffer, from: string, method: string, path: string, now = Date.now()): string {
  const nonce = randomBytes(12).toString('base64url');
  return `${from}.${now}.${nonce}.${mac(key, [from, String(now), nonce, method.toUpperCase(), path])}`;
}

export interface InternalVerifier {
  /** The sending instance's id when the header is a valid, fresh, unused signature of `method path`; else null. */
  verify(header: string | undefined, method: string, path: string): string | null;
}

/** Accepts signatures under any of `keys` (two while a cluster rotates its master key). */
export function createInternalVerifier(keys: readonly Buffer[], now: () => number = Date.now): InternalVerifier {
  /** Nonces seen within the window, with when they expire. */
  const seen = new Map<string, number>();
  let sweepAt = 0;
  return {
    verify(header, method, path) {
      if (!header || header.length > 512) return null;
      const parts = header.split('.');
      if (parts.length !== 4) return null;
      const [from, at, nonce, signature] = parts as [string, string, string, string];
      const time = Number(at);
      const t = now();
      if (!Number.isSafeInteger(time) || Math.abs(t - time) > SIGNATURE_WINDOW_MS) return null;
      const given = Buffer.from(signature);
      const matches = (key: Buffer) => {
        const expected = Buffer.from(mac(key, [from, at, nonce, method.toUpperCase(), path]));
        return given.length === expected.length && timingSafeEqual(given, expected);
      };
      if (!keys.some(matches)) return null;
      if (t > sweepAt) {
        for (const [n, expires] of seen) if (expires < t) seen.delete(n);
        sweepAt = t + SIGNATURE_WINDOW_MS;
      }
      if (seen.has(nonce)) return null;
      seen.set(nonce, time + 2 * SIGNATURE_WINDOW_MS);
      return from;
    },
  };
}
