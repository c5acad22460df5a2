/**
 * Types the transport modules share (device-target, http-transport, channel-connector,
 * legacy-tls-probe): a leaf, importing none of them, so that they need not import each other for types.
 */
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { buildConnector } from 'undici';

/**
 * A way into a device other than a TCP connection to its address, e.g. an APF channel through its
 * CIRA tunnel. A live object: it cannot cross to a worker thread, so a task whose target has one
 * runs on the thread that made it (`WorkerPool.runInProcess`).
 */
export interface DeviceChannel {
  /** Names the endpoint in errors and keys the Digest nonce cache, e.g. `cira:<uuid>:16992`. */
  readonly key: string;
  /** Opens one connection to the device's management port (plain bytes; TLS, if any, runs inside). */
  connect(signal?: AbortSignal): Promise<Duplex>;
  /**
   * Closes what the path opened ahead and no connect took (the device's turn is ending: nothing of
   * this operation may stay open at the device). The main thread's; a worker never sees a channel.
   */
  release?(): void;
  /**
   * Each connection carries one request (an agent relaying to the firmware's local port closes it
   * after the answer): requests say `Connection: close` and none waits for a reused connection.
   */
  readonly oneRequestPerConnection?: boolean;
}

export interface TransportTimeouts {
  /** TCP (and TLS handshake) connect bound. */
  connectMs: number;
  /** Bound from sending a request to the response headers, and between body chunks. */
  firstByteMs: number;
  /** Bound on one whole request, body included. */
  totalMs: number;
}

/** undici's connector returns the socket it opens, though its type says void. */
export type SocketConnector = (options: buildConnector.Options, callback: buildConnector.Callback) => Socket | undefined;
