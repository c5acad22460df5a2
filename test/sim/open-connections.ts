/**
 * The management connections (WS-Management over HTTP or TLS) a simulated device has open now and
 * the most it ever had at once, whichever way they come: TCP on its LAN ports or APF channels of its
 * CIRA tunnel. What a fragile device would feel, so tests can hold the gateway to one at a time.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { DeviceState } from './device-state.js';

export interface ConnectionTracker {
  /** A connection came in (on a server's `connection` event, before any TLS). */
  opened(socket: Duplex): void;
  /** A TLS connection came up over one counted (`secureConnection`): its end (the peer's close_notify or FIN) ends that one. */
  secured(socket: Duplex): void;
  /** A request was answered: an answer that says `Connection: close` ends the device's side of it. */
  answered(req: IncomingMessage, res: ServerResponse): void;
}

const trackers = new WeakMap<DeviceState, ConnectionTracker>();

/** The device's one tracker, shared by its LAN listeners and its tunnel's servers. */
export function connectionTracker(state: DeviceState): ConnectionTracker {
  let tracker = trackers.get(state);
  if (tracker) return tracker;
  const release = new WeakMap<object, () => void>();
  // A TLS request's socket is the TLS layer over the connection counted: the same peer address and port.
  const byPeer = new Map<string, () => void>();
  const peerOf = (socket: { remoteAddress?: string | undefined; remotePort?: number | undefined }): string | undefined =>
    socket.remoteAddress && socket.remotePort ? `${socket.remoteAddress}:${socket.remotePort}` : undefined;
  tracker = {
    opened(socket) {
      const open = state.open;
      let counted = false;
      let ended = false;
      const peer = peerOf(socket as { remoteAddress?: string; remotePort?: number });
      const end = (): void => {
        if (ended) return;
        ended = true;
        if (counted) open.now--;
        if (peer && byPeer.get(peer) === end) byPeer.delete(peer);
      };
      // Counted once the I/O that arrived with it is handled: a client that closed one connection and
      // then opened the next had let go of the first, even when the accept comes up before its FIN.
      setImmediate(() => {
        if (ended) return;
        counted = true;
        open.peak = Math.max(open.peak, ++open.now);
      });
      release.set(socket, end);
      if (peer) byPeer.set(peer, end);
      socket.once('end', end);
      socket.once('close', end);
    },
    secured(socket) {
      // The TLS layer reads the peer's close before the connection under it reports it.
      const end = byPeer.get(peerOf(socket as { remoteAddress?: string; remotePort?: number }) ?? '');
      if (!end) return;
      release.set(socket, end);
      socket.once('end', end);
      socket.once('close', end);
    },
    answered(req, res) {
      const end = release.get(req.socket) ?? byPeer.get(peerOf(req.socket) ?? '');
      res.once('finish', () => {
        if (String(res.getHeader('connection') ?? '').toLowerCase() === 'close') end?.();
      });
    },
  };
  trackers.set(state, tracker);
  return tracker;
}
