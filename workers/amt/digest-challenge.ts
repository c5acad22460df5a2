/**
 * Parses HTTP Digest challenges (`WWW-Authenticate`) the way devices actually send them: uneven
 * separators (`", ` then `",`), quoted and unquoted values, `+` and `/` in base64 nonces, and
 * other schemes before or after Digest in the same header.
 */

export interface DigestChallenge {
  realm: string;
  nonce: string;
  /** The qop options offered, lower-cased (e.g. `['auth']`); empty for an RFC 2069 challenge. */
  qop: string[];
  opaque: string | null;
  /** `MD5` unless the device says otherwise. */
  algorithm: string;
  /** True when the device says the nonce expired but the credentials were right. */
  stale: boolean;
}

interface Param {
  name: string;
  value: string;
}

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z/=]/;

function skipSpaces(s: string, i: number): number {
  while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\r' || s[i] === '\n')) i++;
  return i;
}

function readToken(s: string, i: number, allowEquals: boolean): [string, number] {
  const start = i;
  while (i < s.length && TOKEN.test(s[i]!) && (allowEquals || s[i] !== '=')) i++;
  return [s.slice(start, i), i];
}

function readQuoted(s: string, i: number): [string, number] {
  // s[i] is the opening quote; a backslash escapes the next character (RFC 7230 quoted-pair).
  let out = '';
  i++;
  while (i < s.length && s[i] !== '"') {
    if (s[i] === '\\' && i + 1 < s.length) i++;
    out += s[i];
    i++;
  }
  return [out, i + 1];
}

/** Splits a header into `[scheme, params]` pairs. */
function parseChallenges(header: string): Array<[string, Param[]]> {
  const out: Array<[string, Param[]]> = [];
  let i = 0;
  let current: Param[] | null = null;
  while (i < header.length) {
    i = skipSpaces(header, i);
    if (header[i] === ',') {
      i++;
      continue;
    }
    const [name, afterName] = readToken(header, i, false);
    if (name === '') {
      i++; // an unexpected character: skip it rather than fail the whole header
      continue;
    }
    const afterSpaces = skipSpaces(header, afterName);
    if (header[afterSpaces] === '=' && current) {
      let j = skipSpaces(header, afterSpaces + 1);
      let value: string;
      if (header[j] === '"') [value, j] = readQuoted(header, j);
      else [value, j] = readToken(header, j, true);
      current.push({ name: name.toLowerCase(), value });
      i = j;
    } else {
      current = [];
      out.push([name, current]);
      i = afterName;
    }
  }
  return out;
}

/**
 * The Digest challenge in one or more `WWW-Authenticate` header values, or null when there is none
 * or it lacks realm or nonce, or it asks for an algorithm other than MD5.
 */
export function parseDigestChallenge(header: string | readonly string[] | undefined | null): DigestChallenge | null {
  if (header === undefined || header === null) return null;
  const headers = typeof header === 'string' ? [header] : header;
  for (const h of headers) {
    for (const [scheme, params] of parseChallenges(h)) {
      if (scheme.toLowerCase() !== 'digest') continue;
      const get = (name: string): string | undefined => params.find((p) => p.name === name)?.value;
      const realm = get('realm');
      const nonce = get('nonce');
      if (realm === undefined || !nonce) continue;
      const algorithm = get('algorithm') ?? 'MD5';
      if (algorithm.toUpperCase() !== 'MD5') continue;
      const qop = (get('qop') ?? '')
        .split(',')
        .map((q) => q.trim().toLowerCase())
        .filter((q) => q !== '');
      return {
        realm,
        nonce,
        qop,
        opaque: get('opaque') ?? null,
        algorithm: 'MD5',
        stale: (get('stale') ?? '').toLowerCase() === 'true',
      };
    }
  }
  return null;
}
