/**
 * The CIRA listener behind HAProxy: HAProxy terminates TLS and passes the plain APF bytes on,
 * each connection opened by a PROXY protocol v2 header carrying the device's address. This
 * listener accepts nothing else: a connection whose first bytes are not a valid v2 header (or
 * whose header has not arrived within `headerTimeoutMs`) is closed at once. It is bound to a
 * loopback address or a unix socket (`listener-plan.ts`), or on a network address that accepts
 * only the HAProxy hosts of `tls.proxySources`, so no one else reaches it.
 */
import type { Socket } from 'node:net';
import type { AdmissionTicket } from './admission.js';
import type { TunnelPeer, TunnelSocket } from '../tunnel/tunnel-socket.js';
import { readPrelude } from './prelude.js';
import { parseProxyV2Header } from './proxy-v2-header.js';
import { createSocketListener, type SocketListener } from './socket-listener.js';
import { insideNetworks, parseIpv4, type Cidr } from '../../../core/net/ipv4.js';

export interface ProxyListenerOptions {
  headerTimeoutMs: number;
  /** The HAProxy hosts allowed to connect; empty: any (the listener is loopback or a unix socket). */
  sources: readonly Cidr[];
  maxConnections: number;
  /** Admission before sign-in, keyed on the header's source address (HAProxy's own is the same for all). */
  admit(raw: Socket, address: string): AdmissionTicket | null;
  accepted(socket: TunnelSocket, peer: TunnelPeer): void;
  refused(reason: string): void;
}

/** Room for the addresses and the TLVs HAProxy may add (unique id, SSL details, authority). */
export const MAX_PROXY_HEADER_BYTES = 1024;

export function createProxyListener(options: ProxyListenerOptions): SocketListener {
  return createSocketListener(options.maxConnections, (raw: Socket) => {
    if (options.sources.length > 0) {
      const peer = parseIpv4(raw.remoteAddress?.replace(/^::ffff:/, '') ?? '');
      if (peer === undefined || !insideNetworks(peer, peer, options.sources)) {
        options.refused(`a connection from ${raw.remoteAddress ?? 'an unknown address'}, not one of tls.proxySources`);
        raw.destroy();
        return;
      }
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
