/**
 * HTTP Digest authentication (RFC 2617/7616, MD5, qop=auth) as Intel AMT speaks it: the client keeps
 * one nonce per device and counts `nc` up on every request until the device challenges again.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { DigestChallenge } from './digest-challenge.js';

/** A nonce in use with a device, and how many requests have used it. */
export interface DigestSession {
  readonly challenge: DigestChallenge;
  /** The last nonce count sent (0 before the first request). */
  nc: number;
  /** {@link credentialTag} of the credentials a request on this nonce last succeeded with (null until one did). */
  verifiedFor: string | null;
}

export interface DigestCredentials {
  readonly username: string;
  readonly password: string;
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/** Starts using a challenge's nonce. */
export function openDigestSession(challenge: DigestChallenge): DigestSession {
  return { challenge, nc: 0, verifiedFor: null };
}

/**
 * Tells credentials apart without keeping them: a session proven by one password says nothing about
 * another password of the same user. Held in worker memory only, never logged or returned.
 */
export function credentialTag(credentials: DigestCredentials): string {
  return createHash('sha256').update(`${credentials.username}\0${credentials.password}`, 'utf8').digest('hex');
}

/**
 * The `response` value: `MD5(HA1:nonce:nc:cnonce:qop:HA2)` with qop, `MD5(HA1:nonce:HA2)` without,
 * where `HA1 = MD5(user:realm:password)` and `HA2 = MD5(method:uri)`.
 */
export function digestResponse(
  credentials: DigestCredentials,
  challenge: DigestChallenge,
  method: string,
  uri: string,
  nc: string,
  cnonce: string,
  qop: string | null,
): string {
  const ha1 = ha1Of(credentials, challenge.realm);
  const ha2 = ha2Of(method, uri);
  return qop ? md5(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : md5(`${ha1}:${challenge.nonce}:${ha2}`);
}

/**
 * HA1 and HA2 stay the same for every request of a read (one credential, one realm, `POST /wsman`):
 * kept, a request hashes once instead of three times. HA1 is kept with the credentials object it was
 * computed from (a task's input, gone with the task), never in a table of its own.
 */
const ha1s = new WeakMap<DigestCredentials, { realm: string; ha1: string }>();
function ha1Of(credentials: DigestCredentials, realm: string): string {
  const known = ha1s.get(credentials);
  if (known?.realm === realm) return known.ha1;
  const ha1 = md5(`${credentials.username}:${realm}:${credentials.password}`);
  ha1s.set(credentials, { realm, ha1 });
  return ha1;
}
const ha2s = new Map<string, string>();
const HA2_KEPT = 16;
function ha2Of(method: string, uri: string): string {
  const key = `${method}:${uri}`;
  let ha2 = ha2s.get(key);
  if (ha2 === undefined) {
    ha2 = md5(key);
    if (ha2s.size >= HA2_KEPT) ha2s.clear();
    ha2s.set(key, ha2);
  }
  return ha2;
}

/**
 * Builds the `Authorization` header for the next request on a session, counting `nc` up.
 * The response is always a 32-digit hash: an empty response is never sent.
 */
export function digestAuthorization(credentials: DigestCredentials, session: DigestSession, method: string, uri: string): string {
  const { challenge } = session;
  session.nc += 1;
  const nc = session.nc.toString(16).padStart(8, '0');
  // randomUUID draws from a buffered entropy pool: far cheaper per request than randomBytes.
  const cnonce = randomUUID().replace(/-/g, '');
  const qop = challenge.qop.includes('auth') ? 'auth' : null;
  const response = digestResponse(credentials, challenge, method, uri, nc, cnonce, qop);
  if (!/^[0-9a-f]{32}$/.test(response)) throw new Error('digest response must be a 32-digit hash');
  const parts = [
    `username=${quote(credentials.username)}`,
    `realm=${quote(challenge.realm)}`,
    `nonce=${quote(challenge.nonce)}`,
    `uri=${quote(uri)}`,
    `response="${response}"`,
  ];
  if (qop) parts.push(`qop=${qop}`, `nc=${nc}`, `cnonce="${cnonce}"`);
  if (challenge.opaque !== null) parts.push(`opaque=${quote(challenge.opaque)}`);
  parts.push('algorithm=MD5');
  return `Digest ${parts.join(', ')}`;
}
