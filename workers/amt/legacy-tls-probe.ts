/**
 * What a device that offers only TLS 1.0/1.1 tells a site that has not opted in to legacy TLS. The
 * handshake at TLS 1.2+ ends in a bare protocol-version alert, which names no version; one
 * unauthenticated request over a legacy handshake learns the version (for the error) and the `Server`
 * header (the firmware version). No credential is sent, so nothing secret crosses the weak link and
 * no failed sign-in is counted against the device's lockout.
 */
import { randomUUID } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { Client, buildConnector } from 'undici';
import { channelConnector } from './channel-connector.js';
import type { DeviceChannel, SocketConnector, TransportTimeouts } from './transport-types.js';
import { checkPin, peerFingerprint, tlsConnectOptions, type TlsTrust } from './tls-pinning.js';
import { buildEnvelope, enumerateRequest } from './wsman-envelope.js';

export interface LegacyTlsProbe {
  /** The protocol the device negotiated, as node names it (`TLSv1`, `TLSv1.1`). */
  protocol: string;
  serverHeader: string | null;
  fingerprint: string | null;
}

/** OpenSSL's answers when client and server share no protocol version. */
const VERSION_MISMATCH = new Set(['ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', 'ERR_SSL_UNSUPPORTED_PROTOCOL', 'ERR_SSL_NO_PROTOCOLS_AVAILABLE']);

/** True when a TLS handshake failed because the peer offers no protocol version we accept. */
export function isProtocolVersionMismatch(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && VERSION_MISMATCH.has(code);
}

/** `TLSv1.1` -> `TLS 1.1`, `TLSv1` -> `TLS 1.0`. */
export function tlsVersionName(protocol: string): string {
  const version = /^TLSv(\d)(?:\.(\d))?$/.exec(protocol);
  return version ? `TLS ${version[1]}.${version[2] ?? '0'}` : protocol;
}

/**
 * Connects once with the legacy TLS options and sends an unauthenticated Enumerate, within the same
 * bounds as the transport. The pinned certificate still applies.
 * @returns what was learned, or null when the legacy handshake did not succeed either.
 */
export async function probeLegacyTls(host: string, port: number, trust: TlsTrust, timeouts: TransportTimeouts, signal?: AbortSignal, channel?: DeviceChannel): Promise<LegacyTlsProbe | null> {
  const base = buildConnector({ timeout: timeouts.connectMs, maxCachedSessions: 0, ...tlsConnectOptions({ ...trust, legacyTls: true }) });
  const open = channel ? channelConnector(channel, base, true, timeouts.connectMs, signal) : (base as unknown as SocketConnector);
  let learned: LegacyTlsProbe | null = null;
  const connect: buildConnector.connector = (options, callback) => {
    open(options, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('connect failed'), null);
      const fingerprint = peerFingerprint(socket as TLSSocket);
      const mismatch = checkPin(trust, fingerprint);
      if (mismatch) {
        socket.destroy();
        return callback(mismatch, null);
      }
      learned = { protocol: (socket as TLSSocket).getProtocol() ?? 'unknown', serverHeader: null, fingerprint };
      callback(null, socket);
    });
  };
  const origin = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const client = new Client(origin, { connect, headersTimeout: timeouts.firstByteMs, bodyTimeout: timeouts.firstByteMs, pipelining: 1 });
  const bound = AbortSignal.timeout(timeouts.totalMs);
  try {
    const response = await client.request({
      method: 'POST',
      path: '/wsman',
      headers: { 'content-type': 'application/soap+xml;charset=UTF-8' },
      body: buildEnvelope(enumerateRequest('CIM_SoftwareIdentity', `uuid:${randomUUID()}`)),
      signal: signal ? AbortSignal.any([signal, bound]) : bound,
    });
    await response.body.dump({ limit: 64 * 1024 });
    const server = response.headers['server'];
    if (learned && typeof server === 'string') (learned as LegacyTlsProbe).serverHeader = server;
  } catch {
    // The handshake is what matters; a device that then says nothing useful still told its version.
  } finally {
    await client.destroy().catch(() => undefined);
  }
  return learned;
}
