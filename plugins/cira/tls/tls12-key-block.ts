/**
 * The TLS 1.2 key schedule for the AEAD cipher suites the record layer implements: the PRF
 * (RFC 5246 section 5) and the key block cut into write keys and IVs (section 6.3; RFC 5288 for
 * AES-GCM, RFC 7905 for ChaCha20-Poly1305).
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export type AeadCipher = 'aes-128-gcm' | 'aes-256-gcm' | 'chacha20-poly1305';

export interface AeadSuite {
  cipher: AeadCipher;
  keyBytes: number;
  /** GCM: a 4-byte salt with an 8-byte explicit nonce per record; ChaCha20: a 12-byte IV, no explicit nonce. */
  ivBytes: 4 | 12;
  prfHash: 'sha256' | 'sha384';
}

/** The TLS 1.2 suites offloaded, by their IANA names (what `TLSSocket.getCipher().standardName` reports). */
export const AEAD_SUITES: ReadonlyMap<string, AeadSuite> = new Map([
  ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', { cipher: 'aes-128-gcm', keyBytes: 16, ivBytes: 4, prfHash: 'sha256' }],
  ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', { cipher: 'aes-256-gcm', keyBytes: 32, ivBytes: 4, prfHash: 'sha384' }],
  ['TLS_DHE_RSA_WITH_AES_128_GCM_SHA256', { cipher: 'aes-128-gcm', keyBytes: 16, ivBytes: 4, prfHash: 'sha256' }],
  ['TLS_DHE_RSA_WITH_AES_256_GCM_SHA384', { cipher: 'aes-256-gcm', keyBytes: 32, ivBytes: 4, prfHash: 'sha384' }],
  ['TLS_RSA_WITH_AES_128_GCM_SHA256', { cipher: 'aes-128-gcm', keyBytes: 16, ivBytes: 4, prfHash: 'sha256' }],
  ['TLS_RSA_WITH_AES_256_GCM_SHA384', { cipher: 'aes-256-gcm', keyBytes: 32, ivBytes: 4, prfHash: 'sha384' }],
  ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', { cipher: 'aes-128-gcm', keyBytes: 16, ivBytes: 4, prfHash: 'sha256' }],
  ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', { cipher: 'aes-256-gcm', keyBytes: 32, ivBytes: 4, prfHash: 'sha384' }],
  ['TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256', { cipher: 'chacha20-poly1305', keyBytes: 32, ivBytes: 12, prfHash: 'sha256' }],
  ['TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256', { cipher: 'chacha20-poly1305', keyBytes: 32, ivBytes: 12, prfHash: 'sha256' }],
  ['TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256', { cipher: 'chacha20-poly1305', keyBytes: 32, ivBytes: 12, prfHash: 'sha256' }],
]);

export interface DirectionKeys {
  key: KeyObject;
  iv: Buffer;
}

export interface KeyBlock {
  client: DirectionKeys;
  server: DirectionKeys;
}

/** P_hash(secret, label + seed) cut to `length` bytes: the TLS 1.2 PRF. */
function tls12Prf(hash: 'sha256' | 'sha384', secret: Buffer, label: string, seed: Buffer, length: number): Buffer {
  const labelSeed = Buffer.concat([Buffer.from(label, 'latin1'), seed]);
  const out: Buffer[] = [];
  let produced = 0;
  let a = labelSeed;
  while (produced < length) {
    a = createHmac(hash, secret).update(a).digest();
    const block = createHmac(hash, secret).update(a).update(labelSeed).digest();
    out.push(block);
    produced += block.length;
  }
  return Buffer.concat(out).subarray(0, length);
}

/** The write keys and IVs of both directions; AEAD suites have no MAC keys. */
export function deriveKeyBlock(suite: AeadSuite, masterSecret: Buffer, clientRandom: Buffer, serverRandom: Buffer): KeyBlock {
  const length = 2 * suite.keyBytes + 2 * suite.ivBytes;
  const block = tls12Prf(suite.prfHash, masterSecret, 'key expansion', Buffer.concat([serverRandom, clientRandom]), length);
  let offset = 0;
  const take = (bytes: number) => block.subarray(offset, (offset += bytes));
  const clientKey = take(suite.keyBytes);
  const serverKey = take(suite.keyBytes);
  const clientIv = Buffer.from(take(suite.ivBytes));
  const serverIv = Buffer.from(take(suite.ivBytes));
  const keys = { client: { key: createSecretKey(clientKey), iv: clientIv }, server: { key: createSecretKey(serverKey), iv: serverIv } };
  block.fill(0);
  return keys;
}
