/**
 * TLS trust for devices. AMT devices usually present self-signed certificates, so the default is
 * trust on first use: the task reports the certificate's SHA-256 fingerprint, the main thread stores
 * it, and later connections must present the same one until an operator resets the pin. Sites with an
 * enterprise CA can ask for strict chain validation instead.
 */
import { constants } from 'node:crypto';
import type { ConnectionOptions, PeerCertificate, TLSSocket } from 'node:tls';
import { AmtError } from './errors.js';

export type TlsTrustMode = 'tofu' | 'ca';

export interface TlsTrust {
  mode: TlsTrustMode;
  /** PEM of the CA(s) to validate against in `ca` mode (the system store when omitted). */
  caPem?: string;
  /** In `tofu` mode: the fingerprint pinned on first contact; null or absent on first contact. */
  pinnedFingerprint?: string | null;
  /** The devices plugin's `legacyTls`: also accept TLS 1.0/1.1 and what old firmware needs with them. */
  legacyTls?: boolean;
}

/**
 * What AMT 9-11 firmware needs: TLS 1.0/1.1, whose SHA-1 handshake signatures OpenSSL 3 allows only at
 * security level 0, and servers without secure renegotiation (RFC 5746).
 */
export const LEGACY_TLS_OPTIONS: ConnectionOptions = {
  minVersion: 'TLSv1',
  ciphers: 'DEFAULT:@SECLEVEL=0',
  secureOptions: constants.SSL_OP_LEGACY_SERVER_CONNECT,
};

/** Canonical fingerprint form: upper-case hex pairs joined by colons (as `openssl x509 -fingerprint`). */
export function normalizeFingerprint(fingerprint: string): string {
  const hex = fingerprint.replace(/[^0-9a-fA-F]/g, '').toUpperCase();
  return hex.match(/.{1,2}/g)?.join(':') ?? '';
}

/** The SHA-256 fingerprint of the peer certificate of a TLS socket, or null when there is none. */
export function peerFingerprint(socket: TLSSocket): string | null {
  const cert: PeerCertificate | Record<string, never> = socket.getPeerCertificate();
  const fp = (cert as PeerCertificate).fingerprint256;
  return typeof fp === 'string' && fp !== '' ? normalizeFingerprint(fp) : null;
}

/** Node TLS options for a trust mode. */
export function tlsConnectOptions(trust: TlsTrust): ConnectionOptions {
  return { ...trustOptions(trust), ...(trust.legacyTls ? LEGACY_TLS_OPTIONS : {}) };
}

function trustOptions(trust: TlsTrust): ConnectionOptions {
  if (trust.mode === 'ca') {
    return {
      rejectUnauthorized: true,
      ...(trust.caPem ? { ca: trust.caPem } : {}),
      // Devices are addressed by IP while their certificates name an FQDN: the chain is validated,
      // the name is not.
      checkServerIdentity: () => undefined,
    };
  }
  // Self-signed certificates are the norm: the pin, not the chain, authenticates the device.
  return { rejectUnauthorized: false };
}

/**
 * Checks an observed fingerprint against the pin.
 * @returns an `AMT_ERR_TLS_PIN_MISMATCH` error, or null when the certificate is acceptable.
 */
export function checkPin(trust: TlsTrust, observed: string | null): AmtError | null {
  if (trust.mode !== 'tofu' || !trust.pinnedFingerprint) return null;
  const expected = normalizeFingerprint(trust.pinnedFingerprint);
  if (observed !== null && observed === expected) return null;
  return new AmtError('AMT_ERR_TLS_PIN_MISMATCH', 'device certificate does not match the pinned fingerprint', {
    expectedFingerprint: expected,
    ...(observed !== null ? { observedFingerprint: observed } : {}),
  });
}
