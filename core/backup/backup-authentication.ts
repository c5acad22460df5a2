/**
 * The authentication of a backup as a whole: an HMAC-SHA256 over every line before the trailer,
 * keyed by a key derived from the master key with HKDF (its own info string, so the key serves no
 * other purpose and the master key is never used directly). Whoever edits a backup without the
 * master key cannot make its HMAC match, however the checksum is recomputed.
 */
import { createHmac, hkdfSync, timingSafeEqual, type Hmac } from 'node:crypto';

const INFO = 'amt-gateway backup authentication v2';

/** The backup key of a master key. */
export function backupKey(masterKey: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), INFO, 32));
}

/** A running HMAC of a backup's lines. */
export function backupHmac(masterKey: Uint8Array): Hmac {
  return createHmac('sha256', backupKey(masterKey));
}

/** Whether a trailer's HMAC (hex) is the one computed, in constant time. */
export function hmacMatches(computed: Hmac, claimed: unknown): boolean {
  if (typeof claimed !== 'string' || !/^[0-9a-f]{64}$/.test(claimed)) return false;
  return timingSafeEqual(computed.digest(), Buffer.from(claimed, 'hex'));
}
