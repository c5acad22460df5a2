/**
 * The CIRA listener that terminates TLS in the gateway, on Node's TLS (the only TLS record layer in
 * the gateway). The first bytes are judged before OpenSSL sees them (`first-record.ts`): anything
 * but a TLS handshake is refused at once. Then a `tls.Server` that never listens itself takes the
 * socket over, with the handshake bounded by `handshakeTimeoutMs`. After the handshake a TLS error
 * (a record that does not authenticate, a fatal alert) is reported and ends the tunnel at once:
 * Node emits it without closing the socket.
 */
import { constants } from 'node:crypto';
import type { Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import type { AdmissionTicket } from './admission.js';
import type { TunnelPeer, TunnelSocket } from '../tunnel/tunnel-socket.js';
import { judgeFirstRecord } from './first-record.js';
import { readPrelude } from './prelude.js';
import type { ServerCertificate } from './server-certificate.js';
import { createSocketListener, type SocketListener } from './socket-listener.js';

export type TlsMinVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

export interface TlsListenerOptions {
  certificate: ServerCertificate;
  minVersion: TlsMinVersion;
  handshakeTimeoutMs: number;
  maxConnections: number;
  /** Admission before sign-in at TCP accept, before any TLS work; null: refused (the socket is gone). */
  admit(raw: Socket, address: string): AdmissionTicket | null;
  accepted(socket: TunnelSocket, peer: TunnelPeer): void;
  /** The connection never became a TLS session: not TLS, a failed handshake, too slow. */
  refused(reason: string, remoteAddress: string | null): void;
  /**
   * An error on an established session, the socket's owner ends the tunnel on its 'error': `tls`
   * says whether TLS refused something (a forged record, a fatal alert) or the connection broke (a reset).
   */
  failed(error: Error, remoteAddress: string | null, tls: boolean): void;
}

const LEGACY_TLS = new Set<TlsMinVersion>(['TLSv1', 'TLSv1.1']);
/** Enough to judge the first record: a TLS record header, or an SSLv2 header and message type. */
const FIRST_RECORD_BYTES = 5;

export function createTlsListener(options: TlsListenerOptions): SocketListener {
  const legacy = LEGACY_TLS.has(options.minVersion);
  const tls = createTlsServer({
    cert: options.certificate.cert,
    key: options.certificate.key,
    minVersion: options.minVersion,
    // OpenSSL 3 refuses TLS 1.0/1.1 at its default security level: old firmware needs level 0.
    ...(legacy ? { ciphers: 'DEFAULT:@SECLEVEL=0' } : {}),
    handshakeTimeout: options.handshakeTimeoutMs,
    // A renegotiation is a full handshake's CPU on demand; no AMT firmware asks for one.
    secureOptions: constants.SSL_OP_NO_RENEGOTIATION,
  });
  tls.on('tlsClientError', (err: Error, socket: TLSSocket) => options.refused(`TLS handshake failed: ${err.message}`, socket.remoteAddress ?? null));
  // The TLS socket Node builds over an accepted one is found by the TCP peer's address and port.
  const tickets = new Map<string, AdmissionTicket>();
  tls.on('secureConnection', (socket: TLSSocket) => {
    const peer = { address: socket.remoteAddress, port: socket.remotePort, signedIn: tickets.get(`${socket.remoteAddress}:${socket.remotePort}`)?.release };
    socket.on('error', (err: NodeJS.ErrnoException) => options.failed(err, peer.address ?? null, err.code?.startsWith('ERR_SSL') ?? false));
    options.accepted(socket, peer);
  });

  return createSocketListener(options.maxConnections, (raw: Socket) => {
    const ticket = options.admit(raw, raw.remoteAddress ?? '');
    if (!ticket) return;
    const key = `${raw.remoteAddress}:${raw.remotePort}`;
    tickets.set(key, ticket);
    raw.once('close', () => tickets.delete(key));
    readPrelude(raw, {
      judge: (bytes) => {
        const verdict = judgeFirstRecord(bytes, legacy);
        return verdict.kind === 'tls' ? { kind: 'accepted', value: true, consumed: 0 } : verdict;
      },
      timeoutMs: options.handshakeTimeoutMs,
      maxBytes: FIRST_RECORD_BYTES,
      accepted: () => tls.emit('connection', raw),
      refused: (reason) => options.refused(reason, raw.remoteAddress ?? null),
    });
  });
}
