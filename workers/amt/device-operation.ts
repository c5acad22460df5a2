/**
 * Runs one authenticated operation against a device and returns its outcome as data: the value, or a
 * structured failure, plus what was learned on the way (certificate fingerprint, round trips). Every
 * request of the operation goes on one transport (one connection, kept alive between requests).
 */
import { AmtError, toAmtFailure, type AmtFailure } from './errors.js';
import type { DeviceTarget, TaskCredential } from './device-target.js';
import { openTransport } from './open-transport.js';
import { credentialTag } from './digest-auth.js';
import type { DigestChallenge } from './digest-challenge.js';
import { DigestNonceCache, workerNonceCache } from './digest-nonce-cache.js';
import { WsmanClient } from './wsman-client.js';
import type { DeviceTransport } from './http-transport.js';

/** What every device task returns besides its value. */
export interface OperationMeta {
  /** SHA-256 fingerprint of the device certificate (TLS only), for the main thread to pin. */
  tlsFingerprint: string | null;
  /** The TLS version negotiated (TLS only): `TLSv1`/`TLSv1.1` only under the devices plugin's `legacyTls`, which the main thread logs. */
  tlsProtocol: string | null;
  /** Failed logins the operation caused (401s to signed requests), for the main thread's sign-in memory. */
  failedLogins: number;
  roundTrips: number;
  elapsedMs: number;
}

export type OperationResult<T> = (({ ok: true } & T) | { ok: false; error: AmtFailure }) & OperationMeta;

/**
 * A device's Digest session carried from one operation to the next by the device gate, which holds
 * the device's turn across both (so the nonce count stays in order): the nonce the device issued,
 * how many requests used it, and whether it signed in with the credential the gate hands over with
 * it. Nothing here is secret: the nonce and count travel in the clear on every request.
 */
export interface DigestCarry {
  challenge: DigestChallenge;
  nc: number;
  /** A request on this nonce succeeded with the credential it comes with (a refusal on it may be retried once). */
  proven: boolean;
}

/**
 * Opens a transport and a client, runs `operation`, always closes, and never throws. With `carried`
 * defined the operation keeps a Digest session of its own: it starts on `carried` (null: on one this
 * thread's nonce cache holds for the device, e.g. a scan's, if any), and the result says which session
 * it ended on, for the next operation on the device. Undefined: the thread's shared nonce cache.
 */
export async function runDeviceOperation<T extends object>(
  target: DeviceTarget,
  credential: TaskCredential,
  signal: AbortSignal | undefined,
  operation: (client: WsmanClient, transport: DeviceTransport) => Promise<T>,
  carried?: DigestCarry | null,
): Promise<OperationResult<T> & { digest?: DigestCarry | null }> {
  const started = performance.now();
  let transport: DeviceTransport | undefined;
  let client: WsmanClient | undefined;
  // A session of this operation's own: what it starts on and ends on is the gate's to keep.
  const nonces = carried === undefined ? undefined : new DigestNonceCache(1, 1);
  const tag = nonces ? credentialTag(credential) : '';
  const ended = () => {
    if (!nonces || !transport) return {};
    const session = nonces.take(transport.target);
    return { digest: session ? { challenge: session.challenge, nc: session.nc, proven: session.verifiedFor === tag } : null };
  };
  try {
    if (typeof credential?.username !== 'string' || typeof credential.password !== 'string') {
      throw new AmtError('AMT_ERR_INVALID_INPUT', 'a credential with username and password is required');
    }
    transport = openTransport(target, signal);
    if (nonces && carried) nonces.give(transport.target, { challenge: carried.challenge, nc: carried.nc, verifiedFor: carried.proven ? tag : null });
    else if (nonces) {
      const shared = workerNonceCache.take(transport.target);
      if (shared) nonces.give(transport.target, shared);
    }
    const maxFailed = credential.maxFailedLogins;
    const authBudget = typeof maxFailed === 'number' && maxFailed >= 1 ? { failuresLeft: Math.floor(maxFailed) } : undefined;
    client = new WsmanClient({ transport, credentials: { username: credential.username, password: credential.password }, ...(authBudget ? { authBudget } : {}), ...(nonces ? { nonceCache: nonces } : {}) });
    const value = await operation(client, transport);
    return { ok: true, ...value, ...meta(transport, client, started), ...ended() };
  } catch (error) {
    return { ok: false, error: toAmtFailure(error), ...meta(transport, client, started), ...ended() };
  } finally {
    await transport?.close();
  }
}

function meta(transport: DeviceTransport | undefined, client: WsmanClient | undefined, started: number): OperationMeta {
  return {
    failedLogins: client?.failedLogins ?? 0,
    tlsFingerprint: transport?.observedFingerprint ?? null,
    tlsProtocol: transport?.tlsProtocol ?? null,
    roundTrips: transport?.roundTrips ?? 0,
    elapsedMs: Math.round(performance.now() - started),
  };
}
