/**
 * The device side of HTTP Digest, as an AMT device does it: challenge format of AMT-NOTES (uneven
 * separators), a new nonce on every 401, nonce reuse with increasing nc, stale nonces, an empty
 * response always refused (INTEL-SA-00075), and lockout after repeated failures.
 */
import { createHash, randomBytes } from 'node:crypto';

export type DigestVerdict = 'ok' | 'missing' | 'stale' | 'failed' | 'locked';

export interface DigestAccount {
  username: string;
  password: string;
  realm: string;
  lockoutThreshold: number;
  lockoutMs: number;
  nonceTtlMs: number;
}

interface NonceState {
  issuedAt: number;
  lastNc: number;
}

const MAX_NONCES = 64;
const LOCKOUT_GROWTH_CAP = 16; // 5 s growing to 80 s
const LOCKOUT_MEMORY_MS = 60 * 60 * 1000;

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

/** Parses `Digest k=v, k="v"` into a map; independent of the gateway's parser on purpose. */
export function parseAuthorization(header: string): Map<string, string> | null {
  const match = /^\s*Digest\s+(.*)$/is.exec(header);
  if (!match) return null;
  const params = new Map<string, string>();
  const re = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(match[1]!)) !== null) {
    params.set(m[1]!.toLowerCase(), m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? ''));
  }
  return params;
}

export class SimDigest {
  readonly #nonces = new Map<string, NonceState>();
  #consecutiveFailures = 0;
  #lockedUntil = 0;
  #lockouts = 0;
  #lastFailureAt = 0;
  /** Failed logins (wrong user, password or response, replayed nc), lockout refusals excluded. */
  failures = 0;
  /** Requests refused because the device was locked out. */
  lockedRefusals = 0;

  constructor(readonly account: DigestAccount) {}

  get lockedOut(): boolean {
    return Date.now() < this.#lockedUntil;
  }

  /** Ends a lockout and forgets the failure history (a test control). */
  unlock(): void {
    this.#lockedUntil = 0;
    this.#consecutiveFailures = 0;
    this.#lockouts = 0;
  }

  /** Forgets every nonce, as a device does after a while (the next request gets a stale 401). */
  expireNonces(): void {
    this.#nonces.clear();
  }

  /** A fresh nonce the device will accept (for WS-Management's challenge and the redirection port's). */
  issueNonce(): string {
    const nonce = randomBytes(24).toString('base64');
    this.#nonces.set(nonce, { issuedAt: Date.now(), lastNc: 0 });
    while (this.#nonces.size > MAX_NONCES) this.#nonces.delete(this.#nonces.keys().next().value as string);
    return nonce;
  }

  /** A fresh challenge, formatted exactly like AMT's: `", ` after realm, then `",` separators. */
  challenge(stale = false): string {
    const nonce = this.issueNonce();
    return `Digest realm="${this.account.realm}", nonce="${nonce}",stale="${stale ? 'true' : 'false'}",qop="auth"`;
  }

  /** Judges an Authorization header for a request. */
  verify(header: string | undefined, method: string, url: string): DigestVerdict {
    if (!header) return 'missing';
    return this.verifyParams(parseAuthorization(header), method, url);
  }

  /**
   * Judges Digest parameters (from a header, or from the redirection port's AuthenticateSession
   * message): one lockout counter for both, as on a real device.
   */
  verifyParams(p: Map<string, string> | null, method: string, url: string): DigestVerdict {
    if (this.lockedOut) {
      this.lockedRefusals++;
      return 'locked';
    }
    const response = p?.get('response') ?? '';
    const nonce = p?.get('nonce') ?? '';
    const uri = p?.get('uri') ?? '';
    if (!p || response === '' || !/^[0-9a-f]{32}$/i.test(response)) return this.#fail();
    if (p.get('username') !== this.account.username || p.get('realm') !== this.account.realm || uri !== url) return this.#fail();
    const qop = p.get('qop');
    const nc = p.get('nc') ?? '';
    const cnonce = p.get('cnonce') ?? '';
    const ha1 = md5(`${this.account.username}:${this.account.realm}:${this.account.password}`);
    const ha2 = md5(`${method}:${uri}`);
    const expected = qop ? md5(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : md5(`${ha1}:${nonce}:${ha2}`);
    if (qop && (qop !== 'auth' || !/^[0-9a-f]{8}$/i.test(nc))) return this.#fail();
    if (response.toLowerCase() !== expected) return this.#fail();
    const state = this.#nonces.get(nonce);
    if (!state || Date.now() - state.issuedAt > this.account.nonceTtlMs) {
      this.#nonces.delete(nonce);
      return 'stale';
    }
    const count = qop ? Number.parseInt(nc, 16) : state.lastNc + 1;
    // A replayed or out-of-order nc: the credentials were right, so ask for a fresh nonce (stale).
    if (count <= state.lastNc) return 'stale';
    state.lastNc = count;
    this.#consecutiveFailures = 0;
    return 'ok';
  }

  #fail(): DigestVerdict {
    this.failures++;
    const now = Date.now();
    if (now - this.#lastFailureAt > LOCKOUT_MEMORY_MS) this.#lockouts = 0;
    this.#lastFailureAt = now;
    this.#consecutiveFailures++;
    if (this.#consecutiveFailures >= this.account.lockoutThreshold) {
      const factor = Math.min(LOCKOUT_GROWTH_CAP, 2 ** this.#lockouts);
      this.#lockedUntil = now + this.account.lockoutMs * factor;
      this.#lockouts++;
      this.#consecutiveFailures = 0;
    }
    return 'failed';
  }
}
