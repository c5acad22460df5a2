/** One simulated AMT device: its listeners (HTTP, TLS, RMCP) on its own loopback address, and its controls. */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { SimCiraClient } from './cira-client.js';
import { createDeviceState, snapshotCounters, type DeviceCounters, type DeviceState } from './device-state.js';
import type { CertificateName, DeviceConfig, Misbehaviour, TlsVersion } from './fleet-options.js';
import { certificatePair } from './sim-certs.js';
import { deviceRequestHandler } from './sim-http.js';
import { encodePong, isPresencePing } from './sim-rmcp.js';
import { serveRedirection } from './redirection/redir-server.js';
import { connectionTracker } from './open-connections.js';

function listen(server: NetServer, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Old firmware: only TLS 1.0/1.1, which OpenSSL 3 serves only at security level 0 (SHA-1 handshake signatures). */
function tlsVersionOptions(max: TlsVersion | null): { minVersion?: TlsVersion; maxVersion?: TlsVersion; ciphers?: string } {
  if (max === null) return {};
  if (max === 'TLSv1' || max === 'TLSv1.1') return { minVersion: 'TLSv1', maxVersion: max, ciphers: 'DEFAULT:@SECLEVEL=0' };
  return { maxVersion: max };
}

function closeServer(server: HttpServer | HttpsServer | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A raw TCP/TLS server: closed with every connection it accepted destroyed. */
function trackedServer<S extends NetServer>(server: S, event: 'connection' | 'secureConnection'): S {
  const open = new Set<import('node:net').Socket>();
  server.on(event, (socket: import('node:net').Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  (server as S & { destroyAll(): void }).destroyAll = () => {
    for (const socket of open) socket.destroy();
  };
  return server;
}

/**
 * The TLS port's listener: counts each connection at TCP level (`track`) and hands it to the TLS
 * server only once its first bytes came, so that a connection closed before any (a port probe) ends
 * at its FIN, as on the plain port, not when the TLS server gets round to its reset.
 */
function tlsFront(tls: HttpsServer, track: (socket: import('node:net').Socket) => void): NetServer {
  return trackedServer(
    createNetServer((socket) => {
      track(socket);
      socket.on('error', () => undefined);
      socket.once('readable', () => {
        const first = socket.read() as Buffer | null;
        if (first === null) return void socket.destroy();
        socket.unshift(first);
        tls.emit('connection', socket);
      });
    }),
    'connection',
  );
}

function closeRawServer(server: NetServer | undefined): Promise<void> {
  if (!server) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    (server as NetServer & { destroyAll?(): void }).destroyAll?.();
  });
}

export class SimDevice {
  readonly state: DeviceState;
  #http: HttpServer | undefined;
  #https: HttpsServer | undefined;
  /** The TLS port's listener: hands each connection to `#https` once its first bytes came (see `tlsFront`). */
  #httpsFront: NetServer | undefined;
  #udp: UdpSocket | undefined;
  #redirection: NetServer | undefined;
  #redirectionTls: TlsServer | undefined;
  #online = false;
  /** The device's CIRA side (devices configured to dial in), with its fault controls and counters. */
  readonly cira: SimCiraClient | undefined;

  constructor(readonly config: DeviceConfig, seed: string | number) {
    this.state = createDeviceState(config, seed);
    this.cira = config.cira ? new SimCiraClient(this.state, config.cira) : undefined;
  }

  get address(): string {
    return this.config.address;
  }

  get online(): boolean {
    return this.#online;
  }

  /** Opens the device's listeners (the "go online" control). */
  async start(): Promise<void> {
    if (this.#online) return;
    const handler = deviceRequestHandler(this.state);
    const countConnection = (): void => void this.state.counters.connections++;
    // Counted at TCP level on both ports, before any TLS: what a fragile device would see. A connection
    // ends when either side lets go of it: the client's FIN or close, or the device's own last answer
    // (a 401 with `Connection: close`), after which the device is done with it whatever the timing of
    // the client's next connect. Its tunnel's channels count in the same tally (cira-client.ts).
    const tracker = connectionTracker(this.state);
    const trackOpen = (socket: import('node:net').Socket): void => tracker.opened(socket);
    const releaseOnLastAnswer = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void => tracker.answered(req, res);
    try {
      if (this.config.httpPort !== null) {
        this.#http = createHttpServer({ keepAliveTimeout: 5_000 }, handler);
        this.#http.on('connection', countConnection);
        this.#http.on('connection', trackOpen);
        this.#http.on('request', releaseOnLastAnswer);
        await listen(this.#http, this.address, this.config.httpPort);
      }
      if (this.config.httpsPort !== null) {
        const { key, cert } = certificatePair(this.state.certificate);
        this.#https = createHttpsServer({ key, cert, keepAliveTimeout: 5_000, ...tlsVersionOptions(this.config.tlsMaxVersion) }, handler);
        this.#https.on('secureConnection', countConnection);
        this.#https.on('secureConnection', (socket: import('node:tls').TLSSocket) => tracker.secured(socket));
        this.#https.on('request', releaseOnLastAnswer);
        this.#https.on('tlsClientError', () => undefined);
        this.#httpsFront = tlsFront(this.#https, trackOpen);
        await listen(this.#httpsFront, this.address, this.config.httpsPort);
      }
      if (this.config.redirectionPort !== null) {
        this.#redirection = trackedServer(createNetServer((socket) => serveRedirection(this.state, socket)), 'connection');
        await listen(this.#redirection, this.address, this.config.redirectionPort);
      }
      if (this.config.redirectionTlsPort !== null) {
        const { key, cert } = certificatePair(this.state.certificate);
        this.#redirectionTls = trackedServer(createTlsServer({ key, cert, ...tlsVersionOptions(this.config.tlsMaxVersion) }, (socket) => serveRedirection(this.state, socket)), 'secureConnection');
        this.#redirectionTls.on('tlsClientError', () => undefined);
        await listen(this.#redirectionTls, this.address, this.config.redirectionTlsPort);
      }
      if (this.config.rmcpPort !== null) await this.#startRmcp(this.config.rmcpPort);
      this.cira?.start(this.config.ciraStartDelayMs);
      this.#online = true;
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async #startRmcp(port: number): Promise<void> {
    const udp = createSocket({ type: 'udp4' });
    this.#udp = udp;
    udp.on('message', (msg, rinfo) => {
      if (!isPresencePing(msg)) return;
      this.state.counters.rmcpPings++;
      udp.send(encodePong(this.state, msg), rinfo.port, rinfo.address);
    });
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind({ address: this.address, port }, () => {
        udp.off('error', reject);
        udp.on('error', () => undefined);
        resolve();
      });
    });
  }

  /** Closes every listener and drops open connections (the "go offline" control). */
  async stop(): Promise<void> {
    this.#online = false;
    await this.cira?.stop();
    const udp = this.#udp;
    this.#udp = undefined;
    if (udp) await new Promise<void>((resolve) => udp.close(() => resolve()));
    const [http, https, httpsFront, redirection, redirectionTls] = [this.#http, this.#https, this.#httpsFront, this.#redirection, this.#redirectionTls];
    this.#httpsFront = undefined;
    this.#http = undefined;
    this.#https = undefined;
    this.#redirection = undefined;
    this.#redirectionTls = undefined;
    this.state.redirection.stop();
    await Promise.all([closeServer(http), closeRawServer(httpsFront), closeServer(https), closeRawServer(redirection), closeRawServer(redirectionTls)]);
  }

  /**
   * Closes the LAN listeners (WS-Management ports and RMCP) and leaves the CIRA tunnel up: a device
   * that can no longer be reached on the local network but still dials in.
   */
  async leaveLan(): Promise<void> {
    const udp = this.#udp;
    this.#udp = undefined;
    if (udp) await new Promise<void>((resolve) => udp.close(() => resolve()));
    const [http, https, httpsFront] = [this.#http, this.#https, this.#httpsFront];
    this.#http = undefined;
    this.#https = undefined;
    this.#httpsFront = undefined;
    await Promise.all([closeServer(http), closeRawServer(httpsFront), closeServer(https)]);
  }

  /** The ports actually bound (useful when a port of 0 was asked for). */
  boundPorts(): { http: number | null; https: number | null; redirection: number | null; redirectionTls: number | null } {
    const port = (s: NetServer | undefined): number | null => ((s?.address() as AddressInfo | null)?.port ?? null);
    return { http: port(this.#http), https: port(this.#httpsFront), redirection: port(this.#redirection), redirectionTls: port(this.#redirectionTls) };
  }

  /** The device's redirection side: features, consent (its `consentCode`), boot, open sessions, typed keys. */
  get redirection(): DeviceState['redirection'] {
    return this.state.redirection;
  }

  setPowerState(powerState: number): void {
    this.state.powerState = powerState;
  }

  setMisbehaviour(kind: Misbehaviour): void {
    this.state.misbehaviour = kind;
  }

  /** Presents another certificate on new TLS connections (simulates a replaced or spoofed device). */
  setCertificate(name: CertificateName): void {
    this.state.certificate = name;
    const { key, cert } = certificatePair(name);
    this.#https?.setSecureContext({ key, cert });
    this.#redirectionTls?.setSecureContext({ key, cert });
  }

  /** SHA-256 fingerprint of the certificate the device presents now. */
  get certificateFingerprint(): string | null {
    return this.config.tls ? certificatePair(this.state.certificate).fingerprint256 : null;
  }

  setPassword(password: string): void {
    this.state.digest.account.password = password;
  }

  /** Forgets all Digest nonces: the next request with an old one gets a `stale="true"` 401. */
  expireNonces(): void {
    this.state.digest.expireNonces();
  }

  get lockedOut(): boolean {
    return this.state.digest.lockedOut;
  }

  unlock(): void {
    this.state.digest.unlock();
  }

  counters(): DeviceCounters {
    return snapshotCounters(this.state);
  }

  resetCounters(): void {
    this.state.counters = { requests: 0, authAttempts: 0, unauthorized: 0, connections: 0, rmcpPings: 0, powerChanges: 0 };
    this.state.open.peak = this.state.open.now;
    this.state.digest.failures = 0;
    this.state.digest.lockedRefusals = 0;
  }
}
