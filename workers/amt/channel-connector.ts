/** Connections through a device channel (an APF channel in a CIRA tunnel) for undici, instead of TCP. */
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { buildConnector } from 'undici';
import { AmtError } from './errors.js';
import type { DeviceChannel, SocketConnector } from './transport-types.js';

export type { SocketConnector } from './transport-types.js';

/**
 * Connects through a channel instead of TCP: opens it within `connectMs` (a failure to open is a
 * connect error, as a refused TCP connection is), then runs TLS over it when the port wants TLS.
 */
export function channelConnector(channel: DeviceChannel, base: buildConnector.connector, tls: boolean, connectMs: number, cancel?: AbortSignal): SocketConnector {
  return (connectOptions, callback) => {
    // A timer of our own, cleared once the channel opens: AbortSignal.timeout's would still fire later
    // and build a DOMException for every connection (a relayed request is one connection each).
    const timeout = new AbortController();
    const bound = timeout.signal;
    const timer = setTimeout(() => timeout.abort(new Error('channel open timed out')), connectMs);
    channel.connect(cancel ? AbortSignal.any([cancel, bound]) : bound).finally(() => clearTimeout(timer)).then(
      (stream: Duplex) => {
        if (!tls) return callback(null, stream as Socket);
        base({ ...connectOptions, httpSocket: stream as Socket }, (error, socket) => {
          if (error || !socket) {
            stream.destroy();
            return callback(error ?? new Error('TLS over the channel failed'), null);
          }
          callback(null, socket);
        });
      },
      (error: Error & { code?: string }) => {
        const timedOut = bound.aborted && !cancel?.aborted;
        const detail = error.code ? { cause: error.code } : {};
        callback(
          timedOut
            ? new AmtError('AMT_ERR_CONNECT', `connect to ${channel.key} timed out`, { phase: 'connect', ...detail })
            : new AmtError('AMT_ERR_CONNECT', `cannot connect to ${channel.key}`, detail),
          null,
        );
      },
    );
    return undefined;
  };
}
