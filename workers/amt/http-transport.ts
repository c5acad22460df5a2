/**
 * HTTP(S) to one device with undici, bounded in every dimension: connect time, time to the first
 * byte, idle time between body chunks, total time per request and response size. A device that
 * stalls, sends garbage, a huge body or an endless chunked stream ends in a typed error within the
 * bounds; nothing here waits forever.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Client, buildConnector, type Dispatcher } from 'undici';
import { AmtError } from './errors.js';
import { isProtocolVersionMismatch, probeLegacyTls, tlsVersionName } from './legacy-tls-probe.js';
import { checkPin, peerFingerprint, tlsConnectOptions, type TlsTrust } from './tls-pinning.js';
import { classifyTransportError } from './transport-errors.js';
import { channelConnector } from './channel-connector.js';
import { suppressStackTraces } from './tcp-probe.js';
import type { DeviceChannel, SocketConnector, TransportTimeouts } from './transport-types.js';

export type { TransportTimeouts } from './transport-types.js';

export interface TransportOptions {
  host: string;
  port: number;
  tls: boolean;
  timeouts: TransportTimeouts;
  maxResponseBytes: number;
  /** TLS trust; defaults to trust on first use without a pin. */
  tlsTrust?: TlsTrust;
  /** The caller's cancellation. */
  signal?: AbortSignal;
  /** Reach the device through this (e.g. an APF channel) instead of TCP to `host:port`. */
  channel?: DeviceChannel;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One device's HTTP connection(s) for the length of a task. */
export interface DeviceTransport {
  /** `host:port`, used as the device key (e.g. for the Digest nonce cache). */
  readonly target: string;
  /** Sends one request and reads the whole (bounded) response. */
  request(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<HttpResponse>;
  /** SHA-256 fingerprint of the certificate seen on the last TLS connection. */
  readonly observedFingerprint: string | null;
  /** The last `Server` header seen (AMT puts its firmware version there, even on a 401). */
  readonly serverHeader: string | null;
  /** The TLS version negotiated on the last TLS connection (`TLSv1.2`, or `TLSv1.1` under legacy TLS). */
  readonly tlsProtocol: string | null;
  /** HTTP requests sent so far (round trips). */
  readonly roundTrips: number;
  close(): Promise<void>;
}

const TRANSPORT_CLOSED = new Error('device transport closed');

function originOf(host: string, port: number, tls: boolean): string {
  const h = host.includes(':') ? `[${host}]` : host;
  return `${tls ? 'https' : 'http'}://${h}:${port}`;
}

const cancelled = (): AmtError => new AmtError('AMT_ERR_CANCELLED', 'cancelled');

/**
 * One request on undici's dispatcher, its response gathered into a string within the size bound.
 * The dispatch handler spares each request the AbortController, body stream and async iterator of
 * `client.request`: the benchmark's device reads spent about a tenth of their CPU on those.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly settled: Promise<HttpResponse>;
  #resolve!: (response: HttpResponse) => void;
  #reject!: (error: unknown) => void;
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the exchange was ended before undici started it (it is aborted once it starts). */
  #abortedWith: Error | undefined;
  #status = 0;
  #headers: Record<string, string | string[] | undefined> = {};
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(
    readonly target: string,
    readonly maxResponseBytes: number,
  ) {
    this.settled = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** Ends the exchange with `reason` (a typed error), now or as soon as undici starts it. */
  abort(reason: Error): void {
    if (this.#controller) this.#controller.abort(reason);
    else this.#abortedWith ??= reason;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortedWith) controller.abort(this.#abortedWith);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.#status = statusCode;
    this.#headers = headers;
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > this.maxResponseBytes) controller.abort(this.#tooLarge());
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > this.maxResponseBytes) controller.abort(this.#tooLarge());
    else this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    // undici destroys the socket of an answer that says `Connection: close` (every AMT 401) with a
    // fresh InformationalError as soon as this returns, and Node's destroy() formats its stack, which
    // nobody reads: about 1.6 % of a worker's CPU in device reads. No stack is captured until the
    // microtask queued here, which runs before any continuation of this exchange.
    if (closesConnection(this.#headers['connection'])) queueMicrotask(suppressStackTraces());
    this.#resolve({ status: this.#status, headers: this.#headers, body: Buffer.concat(this.#chunks, this.#size).toString('utf8') });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#reject(error);
  }

  /** The `Server` header of the response, once its headers came (also when its body then failed). */
  get server(): string | undefined {
    const server = this.#headers['server'];
    return typeof server === 'string' ? server : undefined;
  }

  #tooLarge(): AmtError {
    return new AmtError('AMT_ERR_TOO_LARGE', `response from ${this.target} exceeds the size limit`, { status: this.#status });
  }
}

/** The most a transport's close waits for the device to close its side of a connection. */
const CLOSE_GRACE_MS = 1_000;

/**
 * Ends a connection (FIN, after TLS's close_notify) and waits until the device has closed its side,
 * within `graceMs`: once the device has answered our end with its own, it is done with the connection.
 */
function closeGracefully(socket: Socket, graceMs: number): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, graceMs);
    socket.once('close', done);
    socket.once('end', done);
    socket.end();
  });
}

/** True when a `Connection` header carries the `close` token. */
function closesConnection(value: string | string[] | undefined): boolean {
  if (value === undefined) return false;
  return (Array.isArray(value) ? value : [value]).some((v) => /(?:^|,)\s*close\s*(?:,|$)/i.test(v));
}

/** Opens a bounded transport to one device (lazily: the first request connects). */
export function createDeviceTransport(options: TransportOptions): DeviceTransport {
  const { host, port, tls, timeouts, maxResponseBytes } = options;
  const trust: TlsTrust = options.tlsTrust ?? { mode: 'tofu' };
  const target = options.channel ? options.channel.key : `${host}:${port}`;
  let observedFingerprint: string | null = null;
  let serverHeader: string | null = null;
  let tlsProtocol: string | null = null;
  let legacyFailure: Promise<AmtError> | undefined;
  let roundTrips = 0;
  let connections = 0;
  /** The connections open now (at most one: `pipelining: 1`, one request at a time), to close gracefully. */
  const live = new Set<Socket>();

  // No TLS session resumption: a resumed session shows no peer certificate, and every connection
  // must prove the pinned one.
  const base = buildConnector({ timeout: timeouts.connectMs, maxCachedSessions: 0, ...(tls ? tlsConnectOptions(trust) : {}) });
  /** TCP to the address, or the channel (TLS, if any, inside it), for the connector below. */
  const open: SocketConnector = options.channel ? channelConnector(options.channel, base, tls, timeouts.connectMs, options.signal) : (base as unknown as SocketConnector);
  const connector: buildConnector.connector = (connectOptions, callback) => {
    let tcpConnected = false;
    const socket = open(connectOptions, (error, socket) => {
      if (error || !socket) {
        // undici's connect timeout spans TCP and the TLS handshake; a port that accepted TCP and then
        // stayed silent is reachable, and the error says so.
        const handshakeTimeout = tls && tcpConnected && (error as { code?: unknown } | null)?.code === 'UND_ERR_CONNECT_TIMEOUT';
        callback(
          handshakeTimeout
            ? new AmtError('AMT_ERR_TIMEOUT', `TLS handshake with ${target} timed out: the port accepted the connection but never completed TLS`, { phase: 'tls-handshake', cause: 'UND_ERR_CONNECT_TIMEOUT' })
            : (error ?? new Error('connect failed')),
          null,
        );
        return;
      }
      if (tls) {
        tlsProtocol = (socket as TLSSocket).getProtocol() ?? null;
        observedFingerprint = peerFingerprint(socket as TLSSocket);
        const mismatch = checkPin(trust, observedFingerprint);
        if (mismatch) {
          (socket as Socket).destroy();
          callback(mismatch, null);
          return;
        }
      }
      connections++;
      live.add(socket as Socket);
      (socket as Socket).once('close', () => live.delete(socket as Socket));
      callback(null, socket);
    });
    socket?.once('connect', () => void (tcpConnected = true));
  };

  /** Learns, once per transport and without credentials, which old TLS version the device offers. */
  const legacyTlsError = (cause: string | undefined): Promise<AmtError> =>
    (legacyFailure ??= probeLegacyTls(host, port, trust, timeouts, options.signal, options.channel).then((probe) => {
      if (!probe) {
        return new AmtError('AMT_ERR_TLS', `TLS with ${target} failed: the device offers no TLS version the gateway accepts (1.2 or later; the devices plugin's legacyTls adds 1.0 and 1.1)`, { ...(cause ? { cause } : {}) });
      }
      if (probe.serverHeader) serverHeader = probe.serverHeader;
      observedFingerprint ??= probe.fingerprint;
      return new AmtError('AMT_ERR_TLS', `TLS with ${target} failed: the device offers only ${tlsVersionName(probe.protocol)}; enable the devices plugin's legacyTls`, {
        ...(cause ? { cause } : {}),
        tlsVersion: probe.protocol,
      });
    }));

  const client = new Client(originOf(host, port, tls), {
    connect: connector,
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.firstByteMs,
    keepAliveTimeout: 5_000,
    // 0: no keep-alive, and undici says `Connection: close` (so the peer ends each answer at once).
    pipelining: options.channel?.oneRequestPerConnection ? 0 : 1,
    maxResponseSize: maxResponseBytes,
  });

  /** The exchange in flight (one at a time: `pipelining: 1`), for the total timeout and cancellation to end. */
  let current: Exchange | undefined;
  const onCancel = (): void => current?.abort(cancelled());
  options.signal?.addEventListener('abort', onCancel, { once: true });

  async function request(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<HttpResponse> {
    if (options.signal?.aborted) throw cancelled();
    roundTrips++;
    const exchange = new Exchange(target, maxResponseBytes);
    current = exchange;
    const timer = setTimeout(() => exchange.abort(new AmtError('AMT_ERR_TIMEOUT', `request to ${target} exceeded the total timeout`, { phase: 'total' })), timeouts.totalMs);
    try {
      client.dispatch({ method, path, headers, body }, exchange);
      return await exchange.settled;
    } catch (error) {
      if (tls && !trust.legacyTls && isProtocolVersionMismatch(error)) throw await legacyTlsError((error as { code?: string }).code);
      throw classifyTransportError(error, target, connections > 0);
    } finally {
      clearTimeout(timer);
      if (current === exchange) current = undefined;
      serverHeader = exchange.server ?? serverHeader;
    }
  }

  return {
    target,
    request,
    get observedFingerprint() {
      return observedFingerprint;
    },
    get serverHeader() {
      return serverHeader;
    },
    get tlsProtocol() {
      return tlsProtocol;
    },
    get roundTrips() {
      return roundTrips;
    },
    async close() {
      options.signal?.removeEventListener('abort', onCancel);
      // The device lets go of the connection before the gateway's next one to it, whichever way that goes.
      await Promise.all([...live].map((socket) => closeGracefully(socket, Math.min(timeouts.totalMs, CLOSE_GRACE_MS))));
      // Every request has settled by now, so only idle keep-alive sockets remain. Destroying with one
      // shared error spares undici building (and source-mapping) a fresh error stack per transport.
      await client.destroy(TRANSPORT_CLOSED).catch(() => undefined);
    },
  };
}
