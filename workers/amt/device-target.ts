/**
 * How a task names a device and its limits. Task inputs carry these plain objects; the defaults here
 * apply where a field is omitted. Opening a transport to a target is open-transport.ts's (it loads
 * undici, which the main thread's users of these checks, such as redirection, must not load at start).
 */
import { isIP } from 'node:net';
import { AMT_PORTS } from './amt-ports.js';
import { AmtError } from './errors.js';
import type { DeviceChannel, TransportTimeouts } from './transport-types.js';
import type { TlsTrustMode } from './tls-pinning.js';

export const DEFAULT_PORTS = { http: AMT_PORTS.http, https: AMT_PORTS.https, rmcp: AMT_PORTS.rmcp } as const;
export const DEFAULT_TIMEOUTS: TransportTimeouts = { connectMs: 3_000, firstByteMs: 10_000, totalMs: 30_000 };
/** 4 MiB: the largest legitimate AMT answers (certificates, full event log pages) stay far below. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** A credential unsealed by the main thread for one task; never logged, echoed or put in an error. */
export interface TaskCredential {
  id: string;
  username: string;
  password: string;
  /**
   * Failed logins (401s to signed requests) this credential may cause in the task; default 2 (one
   * re-authentication). The main thread's sign-in memory sets it so a device stays below its lockout.
   */
  maxFailedLogins?: number;
}

export interface TlsTrustInput {
  mode: TlsTrustMode;
  /** PEM of trusted CAs for `ca` mode. */
  caPem?: string;
  /** The devices plugin's `legacyTls`: also accept TLS 1.0/1.1 (old firmware). */
  legacyTls?: boolean;
}

export type { DeviceChannel, TransportTimeouts } from './transport-types.js';

/** One device endpoint with its bounds. */
export interface DeviceTarget {
  address: string;
  /** 16992 (HTTP) or 16993 (TLS) unless a site says otherwise. */
  port: number;
  tls: boolean;
  timeouts?: Partial<TransportTimeouts>;
  maxResponseBytes?: number;
  tlsTrust?: TlsTrustInput;
  /** The fingerprint the main thread pinned for this device (TOFU); null or absent on first contact. */
  pinnedFingerprint?: string | null;
  /** Reach the device through this instead of a TCP connection to `address` (which then only labels it). */
  channel?: DeviceChannel;
}

/** @throws AmtError `AMT_ERR_INVALID_INPUT` for an address that is not an IP or a port out of range. */
export function validateTarget(target: DeviceTarget): void {
  if (target?.channel && (typeof target.channel.key !== 'string' || typeof target.channel.connect !== 'function')) {
    throw new AmtError('AMT_ERR_INVALID_INPUT', 'a channel needs a key and connect()');
  }
  if (typeof target?.address !== 'string' || isIP(target.address) === 0) {
    throw new AmtError('AMT_ERR_INVALID_INPUT', 'address must be an IPv4 or IPv6 address');
  }
  if (!Number.isInteger(target.port) || target.port < 1 || target.port > 65535) {
    throw new AmtError('AMT_ERR_INVALID_INPUT', 'port must be an integer from 1 to 65535');
  }
}

/** Resolves the timeouts of a target, each bound at least 1 ms. */
export function resolveTimeouts(timeouts: Partial<TransportTimeouts> | undefined): TransportTimeouts {
  const pick = (value: number | undefined, fallback: number): number =>
    typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
  return {
    connectMs: pick(timeouts?.connectMs, DEFAULT_TIMEOUTS.connectMs),
    firstByteMs: pick(timeouts?.firstByteMs, DEFAULT_TIMEOUTS.firstByteMs),
    totalMs: pick(timeouts?.totalMs, DEFAULT_TIMEOUTS.totalMs),
  };
}
