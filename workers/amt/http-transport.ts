/**
 * HTTP(S) to one device with undici, bounded in every dimension: connect time, time to the first
 * byte, idle time between body chunks, total time per request and response size. A device that
 * stalls, sends garbage, a huge body or an endless chunked stream ends in a typed error within the
 * bounds; nothing here waits forever.
 */
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Client, buildConnector } from 'undici';
import { AmtError } from './errors.js';
import { isProtocolVersionMismatch, probeLegacyTls, tlsVersionName } from './legacy-tls-probe.js';
import { checkPin, peerFingerprint, tlsConnectOptions, type TlsTrust } from './tls-pinning.js';
import { classifyTransportError } from './transport-errors.js';
import { channelConnector } from './channel-connector.js';
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

const TOTAL_TIMEOUT = Symbol('total-timeout');
const TRANSPORT_CLOSED = new Error('device transport closed');

function originOf(host: string, port: number, tls: boolean): string {
  const h = host.includes(':') ? `[${host}]` : host;
  return `${tls ? 'https' : 'http'}://${h}:${port}`;
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
      callback(null, socket);
    });
    socket?.once('connect', () => void (tcpConnected = true));
  };

  /** Learns, once per transport and without credentials, which old TLS version the device offers. */
  const legacyTlsError = (cause: string | undefined): Promise<AmtError> =>
    (legacyFailure ??= probeLegacyTls(host, port, trust, timeouts, options.signal, options.channel).then((probe) => {
      if (!probe) {
        return new AmtError('AMT_ERR_TLS', `TLS with ${target} failed: the device offers no TLS version the gateway accepts (1.2 or later; amt.legacyTls adds 1.0 and 1.1)`, { ...(cause ? { cause } : {}) });
      }
      if (probe.serverHeader) serverHeader = probe.serverHeader;
      observedFingerprint ??= probe.fingerprint;
      return new AmtError('AMT_ERR_TLS', `TLS with ${target} failed: the device offers only ${tlsVersionName(probe.protocol)}; enable amt.legacyTls`, {
        ...(cause ? { cause } : {}),
        tlsVersion: probe.protocol,
      });
    }));

  const client = new Client(originOf(host, port, tls), {
    connect: connector,
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.firstByteMs,
    keepAliveTimeout: 5_000,
    pipelining: 1,
    maxResponseSize: maxResponseBytes,
  });

  async function request(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<HttpResponse> {
    if (options.signal?.aborted) throw new AmtError('AMT_ERR_CANCELLED', 'cancelled');
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(TOTAL_TIMEOUT), timeouts.totalMs);
    const onCancel = (): void => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onCancel, { once: true });
    roundTrips++;
    try {
      const response = await client.request({ method, path, headers, body, signal: controller.signal });
      const server = response.headers['server'];
      if (typeof server === 'string') serverHeader = server;
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxResponseBytes) {
        response.body.destroy();
        throw new AmtError('AMT_ERR_TOO_LARGE', `response from ${target} exceeds the size limit`, { status: response.statusCode });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxResponseBytes) {
          response.body.destroy();
          throw new AmtError('AMT_ERR_TOO_LARGE', `response from ${target} exceeds the size limit`, { status: response.statusCode });
        }
        chunks.push(chunk);
      }
      return { status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks, size).toString('utf8') };
    } catch (error) {
      if (controller.signal.aborted) {
        if (controller.signal.reason === TOTAL_TIMEOUT) {
          throw new AmtError('AMT_ERR_TIMEOUT', `request to ${target} exceeded the total timeout`, { phase: 'total' });
        }
        throw new AmtError('AMT_ERR_CANCELLED', 'cancelled');
      }
      if (tls && !trust.legacyTls && isProtocolVersionMismatch(error)) throw await legacyTlsError((error as { code?: string }).code);
      throw classifyTransportError(error, target, connections > 0);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCancel);
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
      // Every request has settled by now, so only idle keep-alive sockets remain. Destroying with one
      // shared error spares undici building (and source-mapping) a fresh error stack per transport.
      await client.destroy(TRANSPORT_CLOSED).catch(() => undefined);
    },
  };
}
