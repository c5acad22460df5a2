/**
 * HTTP Digest as the firmware checks it during and after activation: several accounts at once (the
 * local system account the agent reads over HECI, and `admin` once activated), each known by its A1
 * hash (Setup hands the firmware MD5(`admin:realm:password`), never the password), one table of
 * nonces for all of them (a nonce issued before Setup signs the new `admin` too), nc increasing per
 * nonce, an empty response always refused, lockout after repeated failures.
 */
import { createHash, randomBytes } from 'node:crypto';
import { parseAuthorization, type DigestVerdict } from '../sim-digest.js';

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

export interface DigestPolicy {
  realm: string;
  lockoutThreshold: number;
  lockoutMs: number;
  nonceTtlMs: number;
}

const MAX_NONCES = 256;

export class FirmwareDigest {
  /** username → A1 hash (hex). */
  readonly #accounts = new Map<string, string>();
  readonly #nonces = new Map<string, { issuedAt: number; lastNc: number }>();
  #failuresInRow = 0;
  #lockedUntil = 0;
  /** Failed logins, counted as the firmware counts them. */
  failures = 0;
  /** Challenges issued (401s). */
  challenges = 0;

  constructor(readonly policy: DigestPolicy) {}

  /** Sets an account from its password (the local system account) or from the A1 hash Setup gives. */
  setAccount(username: string, secret: { password: string } | { a1: string }): void {
    this.#accounts.set(username, 'a1' in secret ? secret.a1.toLowerCase() : md5(`${username}:${this.policy.realm}:${secret.password}`));
  }

  removeAccount(username: string): void {
    this.#accounts.delete(username);
  }

  hasAccount(username: string): boolean {
    return this.#accounts.has(username);
  }

  get lockedOut(): boolean {
    return Date.now() < this.#lockedUntil;
  }

  /** A 401's challenge, in AMT's format. */
  challenge(stale = false): string {
    this.challenges++;
    const nonce = randomBytes(24).toString('base64');
    this.#nonces.set(nonce, { issuedAt: Date.now(), lastNc: 0 });
    while (this.#nonces.size > MAX_NONCES) this.#nonces.delete(this.#nonces.keys().next().value as string);
    return `Digest realm="${this.policy.realm}", nonce="${nonce}",stale="${stale ? 'true' : 'false'}",qop="auth"`;
  }

  /** The verdict on a request's Authorization header, and the account it signed in as. */
  verify(header: string | undefined, method: string, url: string): { verdict: DigestVerdict; username: string | null } {
    if (!header) return { verdict: 'missing', username: null };
    if (this.lockedOut) return { verdict: 'locked', username: null };
    const p = parseAuthorization(header);
    const username = p?.get('username') ?? '';
    const a1 = this.#accounts.get(username);
    const response = (p?.get('response') ?? '').toLowerCase();
    const nonce = p?.get('nonce') ?? '';
    const nc = p?.get('nc') ?? '';
    const qop = p?.get('qop');
    if (!p || !a1 || !/^[0-9a-f]{32}$/.test(response) || p.get('realm') !== this.policy.realm || p.get('uri') !== url || qop !== 'auth' || !/^[0-9a-f]{8}$/i.test(nc)) return this.#fail();
    const expected = md5(`${a1}:${nonce}:${nc}:${p.get('cnonce') ?? ''}:${qop}:${md5(`${method}:${url}`)}`);
    if (response !== expected) return this.#fail();
    const state = this.#nonces.get(nonce);
    if (!state || Date.now() - state.issuedAt > this.policy.nonceTtlMs) {
      this.#nonces.delete(nonce);
      return { verdict: 'stale', username };
    }
    const count = Number.parseInt(nc, 16);
    if (count <= state.lastNc) return { verdict: 'stale', username };
    state.lastNc = count;
    this.#failuresInRow = 0;
    return { verdict: 'ok', username };
  }

  #fail(): { verdict: DigestVerdict; username: null } {
    this.failures++;
    if (++this.#failuresInRow >= this.policy.lockoutThreshold) {
      this.#lockedUntil = Date.now() + this.policy.lockoutMs;
      this.#failuresInRow = 0;
    }
    return { verdict: 'failed', username: null };
  }
}
