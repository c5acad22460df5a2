/**
 * The CIRA listener behind HAProxy: HAProxy terminates TLS and passes the plain APF bytes on,
 * each connection opened by a PROXY protocol v2 header carrying the device's address. This
 * listener believes that header only from HAProxy: on a port, a connection from an address that is
 * not a configured proxy source is closed before a byte of it is read (on a unix socket, the
 * file's owner, group and mode decide who connects). It accepts nothing else: a connection whose
 * first bytes are not a valid v2 header (or whose header has not arrived within `headerTimeoutMs`)
 * is closed at once. It is bound to a loopback address or a unix socket only (`listener-plan.ts`),
 * so it is never reachable from the network without HAProxy.
 */
import type { Socket } from 'node:net';
import type { AdmissionTicket } from './admission.js';
import type { TunnelPeer, TunnelSocket } from '../tunnel/tunnel-socket.js';
import { readPrelude } from './prelude.js';
import { parseProxyV2Header } from './proxy-v2-header.js';
import { createSocketListener, type SocketListener } from './socket-listener.js';

export interface ProxyListenerOptions {
  headerTimeoutMs: number;
  maxConnections: number;
  /** Whether a peer (its address as the socket saw it; none on a unix socket) may send PROXY headers. */
  fromProxy(peerAddress: string | undefined): boolean;
  /** A connection from a peer that is no proxy source, closed unread. */
  notProxy(peerAddress: string): void;
  /** Admission before sign-in, keyed on the header's source address (HAProxy's own is the same for all). */
  admit(raw: Socket, address: string): AdmissionTicket | null;
  accepted(socket: TunnelSocket, peer: TunnelPeer): void;
  refused(reason: string): void;
}

/** Room for the addresses and the TLVs HAProxy may add (unique id, SSL details, authority). */
export const MAX_PROXY_HEADER_BYTES = 1024;

export function createProxyListener(options: ProxyListenerOptions): SocketListener {
  return createSocketListener(options.maxConnections, (raw: Socket) => {
    if (!options.fromProxy(raw.remoteAddress)) {
      raw.destroy();
      return options.notProxy(raw.remoteAddress ?? '');
    }
    readPrelude(raw, {
      judge: (bytes) => parseProxyV2Header(bytes, MAX_PROXY_HEADER_BYTES),
      timeoutMs: options.headerTimeoutMs,
      maxBytes: MAX_PROXY_HEADER_BYTES,
      accepted: (source) => {
        const ticket = options.admit(raw, source.address ?? '');
        if (!ticket) return;
        options.accepted(raw, { ...source, signedIn: ticket.release });
        raw.resume();
      },
      refused: (reason) => options.refused(reason),
    });
  });
}
