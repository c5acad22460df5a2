/**
 * Runs one authenticated operation against a device and returns its outcome as data: the value, or a
 * structured failure, plus what was learned on the way (certificate fingerprint, round trips).
 */
import { AmtError, toAmtFailure, type AmtFailure } from './errors.js';
import { openTransport, type DeviceTarget, type TaskCredential } from './device-target.js';
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

/** Opens a transport and a client, runs `operation`, always closes, and never throws. */
export async function runDeviceOperation<T extends object>(
  target: DeviceTarget,
  credential: TaskCredential,
  signal: AbortSignal | undefined,
  operation: (client: WsmanClient, transport: DeviceTransport) => Promise<T>,
): Promise<OperationResult<T>> {
  const started = performance.now();
  let transport: DeviceTransport | undefined;
  let client: WsmanClient | undefined;
  try {
    if (typeof credential?.username !== 'string' || typeof credential.password !== 'string') {
      throw new AmtError('AMT_ERR_INVALID_INPUT', 'a credential with username and password is required');
    }
    transport = openTransport(target, signal);
    const maxFailed = credential.maxFailedLogins;
    const authBudget = typeof maxFailed === 'number' && maxFailed >= 1 ? { failuresLeft: Math.floor(maxFailed) } : undefined;
    client = new WsmanClient({ transport, credentials: { username: credential.username, password: credential.password }, ...(authBudget ? { authBudget } : {}) });
    const value = await operation(client, transport);
    return { ok: true, ...value, ...meta(transport, client, started) };
  } catch (error) {
    return { ok: false, error: toAmtFailure(error), ...meta(transport, client, started) };
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
