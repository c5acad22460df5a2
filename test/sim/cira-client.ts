/**
 * A simulated device's CIRA side: it dials out over TLS from its own loopback address, signs in with
 * MPS credentials, registers its forwards, sends and answers keep-alives, and serves its WS-Management
 * HTTP(S) face inside the channels the server opens. Faults on demand: wrong password, vanish, silent,
 * reconnect storms; an impostor that claims another device's UUID (`claimUuid`, with the device's
 * `no-auth` or `refuse-all` misbehaviour and another certificate).
 */
import { EventEmitter } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { ApfProtocolError, ApfReader, encode, type ServerMessage } from './cira-apf.js';
import { CiraChannel, type ChannelCounters } from './cira-channel.js';
import type { DeviceState } from './device-state.js';
import { certificatePair } from './sim-certs.js';
import { deviceRequestHandler } from './sim-http.js';
import { serveRedirection } from './redirection/redir-server.js';
import { connectionTracker } from './open-connections.js';
import type { Duplex } from 'node:stream';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';

/** Ports a device serves inside channels: WS-Management and redirection, plain and TLS. */
const SERVED_PORTS = [16992, 16993, 16994, 16995];

export interface CiraOptions {
  /** The gateway's CIRA listener. */
  host: string;
  port: number;
  /** MPS account the device signs in with. */
  username: string;
  password: string;
  /** PEM of the server certificate (or its root) to trust; without it the certificate is not checked. */
  ca?: string;
  /** Ports registered with tcpip-forward (default 16992, or 16993 for a TLS device). */
  forwardPorts?: number[];
  /** Keep-alive interval until the server sets one (default 30 s). */
  keepAliveSeconds?: number;
  /** Delay before reconnecting after a lost tunnel; 0 disables reconnects (default 2,000 ms). */
  reconnectMs?: number;
  /** Receive window the device gives each channel (default 8,192 bytes). */
  windowSize?: number;
  /** Sizes of the CHANNEL_DATA payloads the device sends, in turn (default uneven ones of 1 byte to 4 KiB: `ODD_PIECES`). */
  dataPieces?: number[];
  /** Most channels open at once; more are refused with "resource shortage" (default 8). */
  maxChannels?: number;
  /** Connect + sign-in bound (default 30,000 ms). */
  handshakeTimeoutMs?: number;
  /** The UUID sent in PROTOCOLVERSION (default the device's own): an impostor claims another device's. */
  claimUuid?: string;
  /** The common name the server's certificate must carry, as firmware checks it (default: not checked). */
  expectedCommonName?: string;
  /** What answers HTTP inside the channels (default the fleet device's handler; activated machines bring their firmware's). */
  requestHandler?: (req: IncomingMessage, res: ServerResponse) => void;
}

export type CiraFault = 'none' | 'wrong-password' | 'silent';
export type CiraStatus = 'stopped' | 'connecting' | 'connected' | 'refused' | 'disconnected';

export interface CiraCounters extends ChannelCounters {
  connects: number;
  authSuccesses: number;
  authFailures: number;
  keepAlivesSent: number;
  keepAliveRepliesReceived: number;
  keepAliveRequestsAnswered: number;
  keepAliveOptions: number;
  channelsOpened: number;
  channelsRefused: number;
  protocolErrors: number;
  disconnects: number;
}

const newCounters = (): CiraCounters => ({
  connects: 0, authSuccesses: 0, authFailures: 0, keepAlivesSent: 0, keepAliveRepliesReceived: 0, keepAliveRequestsAnswered: 0,
  keepAliveOptions: 0, channelsOpened: 0, channelsRefused: 0, protocolErrors: 0, disconnects: 0,
  windowOverruns: 0, dataMessagesSent: 0, dataMessagesReceived: 0, windowAdjustsReceived: 0,
});

type Phase = 'auth-service' | 'auth' | 'pfwd-service' | 'forwards' | 'ready';

/** One tunnel attempt; a new one per connect so that late events of an old socket touch nothing. */
interface Session {
  socket: TLSSocket;
  reader: ApfReader;
  phase: Phase;
  forwardsPending: number[];
  channels: Map<number, CiraChannel>;
  nextChannel: number;
  keepAlive: NodeJS.Timeout | undefined;
  handshake: NodeJS.Timeout | undefined;
  cookie: number;
  corked: boolean;
}

export class SimCiraClient extends EventEmitter {
  #status: CiraStatus = 'stopped';
  #session: Session | undefined;
  #wanted = false;
  #failuresInRow = 0;
  #reconnect: NodeJS.Timeout | undefined;
  #fault: CiraFault = 'none';
  #keepAliveSeconds: number;
  #keepAliveTimeoutSeconds: number | null = null;
  #http: HttpServer | undefined;
  #https: HttpsServer | undefined;
  #tlsRedirection: TlsServer | undefined;
  counters: CiraCounters = newCounters();

  constructor(private readonly state: DeviceState, readonly options: CiraOptions) {
    super();
    this.#keepAliveSeconds = options.keepAliveSeconds ?? 30;
  }

  get status(): CiraStatus {
    return this.#status;
  }

  get fault(): CiraFault {
    return this.#fault;
  }

  /** The keep-alive interval and timeout in force (the server's, once it sent options). */
  get keepAlive(): { intervalSeconds: number; timeoutSeconds: number | null } {
    return { intervalSeconds: this.#keepAliveSeconds, timeoutSeconds: this.#keepAliveTimeoutSeconds };
  }

  get forwardPorts(): number[] {
    return this.options.forwardPorts ?? (this.state.config.tls ? [16993, 16995] : [16992, 16994]);
  }

  get openChannels(): number {
    return this.#session?.channels.size ?? 0;
  }

  /** Starts dialing (after `delayMs`), and redialing after losses. */
  start(delayMs = 0): void {
    this.#wanted = true;
    if (this.#session || this.#reconnect) return;
    if (delayMs <= 0) return this.#connect();
    this.#reconnect = setTimeout(() => {
      this.#reconnect = undefined;
      if (this.#wanted) this.#connect();
    }, delayMs);
  }

  /** Disconnects politely (DISCONNECT, then close) and stops redialing. */
  async stop(): Promise<void> {
    this.#wanted = false;
    clearTimeout(this.#reconnect);
    this.#reconnect = undefined;
    const session = this.#session;
    if (!session) {
      this.#status = 'stopped';
      return;
    }
    await new Promise<void>((resolve) => {
      session.socket.once('close', () => resolve());
      if (session.socket.writable) session.socket.end(encode.disconnect(11));
      else session.socket.destroy();
      setTimeout(() => session.socket.destroy(), 500).unref();
    });
    this.#status = 'stopped';
  }

  /** The device drops off the network: the socket is destroyed without a word, and no redial follows. */
  vanish(): void {
    this.#wanted = false;
    clearTimeout(this.#reconnect);
    this.#reconnect = undefined;
    this.#session?.socket.destroy();
  }

  /**
   * `wrong-password` signs in with a wrong password from the next connect on; `silent` keeps the socket
   * open but stops sending and answering anything (a hung firmware).
   */
  setFault(fault: CiraFault): void {
    this.#fault = fault;
  }

  /** Drops and redials the tunnel `times` times, `gapMs` apart, each time with the same UUID. */
  async reconnectStorm(times: number, gapMs: number): Promise<void> {
    for (let i = 0; i < times; i++) {
      this.#session?.socket.destroy();
      clearTimeout(this.#reconnect);
      this.#reconnect = undefined;
      this.#wanted = true;
      this.#connect();
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
  }

  /** Resolves when the status becomes `status`; rejects after `timeoutMs`. */
  waitFor(status: CiraStatus, timeoutMs = 10_000): Promise<void> {
    if (this.#status === status) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onStatus = (s: CiraStatus): void => {
        if (s !== status) return;
        clearTimeout(timer);
        this.off('status', onStatus);
        resolve();
      };
      const timer = setTimeout(() => {
        this.off('status', onStatus);
        reject(new Error(`${this.state.config.address}: CIRA status ${this.#status}, not ${status}, after ${timeoutMs} ms`));
      }, timeoutMs);
      this.on('status', onStatus);
    });
  }

  #setStatus(status: CiraStatus): void {
    if (this.#status === status) return;
    this.#status = status;
    this.emit('status', status);
  }

  #connect(): void {
    this.#setStatus('connecting');
    this.counters.connects++;
    const raw = netConnect({ host: this.options.host, port: this.options.port, localAddress: this.state.config.address });
    raw.on('error', () => undefined);
    const socket = tlsConnect({
      socket: raw,
      ca: this.options.ca,
      rejectUnauthorized: this.options.ca !== undefined,
      checkServerIdentity: (_host, certificate) =>
        this.options.expectedCommonName === undefined || certificate.subject?.CN === this.options.expectedCommonName ? undefined : new Error(`the server's certificate is not issued to ${this.options.expectedCommonName}`),
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
    });
    const session: Session = {
      socket,
      reader: new ApfReader(),
      phase: 'auth-service',
      forwardsPending: [],
      channels: new Map(),
      nextChannel: 1,
      keepAlive: undefined,
      handshake: setTimeout(() => socket.destroy(), this.options.handshakeTimeoutMs ?? 30_000),
      cookie: 1,
      corked: false,
    };
    this.#session = session;
    socket.setNoDelay(true);
    socket.once('secureConnect', () => {
      socket.write(Buffer.concat([encode.protocolVersion(this.options.claimUuid ?? this.state.config.uuid), encode.serviceRequest('auth@amt.intel.com')]));
    });
    socket.on('data', (chunk: Buffer) => this.#onData(session, chunk));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      raw.destroy();
      this.#onClose(session);
    });
    raw.once('close', () => socket.destroy());
  }

  #onData(session: Session, chunk: Buffer): void {
    if (this.#fault === 'silent') return;
    let messages: ServerMessage[];
    try {
      messages = session.reader.push(chunk);
    } catch (error) {
      if (!(error instanceof ApfProtocolError)) throw error;
      this.counters.protocolErrors++;
      session.socket.destroy();
      return;
    }
    for (const message of messages) this.#handle(session, message);
  }

  /** Messages written in one tick leave in one TLS record, as a device's TCP segment would carry them. */
  #send(session: Session, message: Buffer): void {
    if (this.#fault === 'silent' || session.socket.destroyed) return;
    if (!session.corked) {
      session.corked = true;
      session.socket.cork();
      process.nextTick(() => {
        session.corked = false;
        session.socket.uncork();
      });
    }
    session.socket.write(message);
  }

  #handle(session: Session, m: ServerMessage): void {
    const fail = (): void => {
      this.counters.protocolErrors++;
      session.socket.destroy();
    };
    switch (m.type) {
      case 'service-accept':
        if (session.phase === 'auth-service' && m.service === 'auth@amt.intel.com') {
          session.phase = 'auth';
          const password = this.#fault === 'wrong-password' ? `${this.options.password}-wrong` : this.options.password;
          this.#send(session, encode.userauthPassword(this.options.username, password));
        } else if (session.phase === 'pfwd-service' && m.service === 'pfwd@amt.intel.com') {
          session.phase = 'forwards';
          session.forwardsPending = [...this.forwardPorts];
          this.#send(session, encode.tcpipForward(session.forwardsPending[0]!));
        } else fail();
        return;
      case 'userauth-success':
        if (session.phase !== 'auth') return fail();
        this.counters.authSuccesses++;
        session.phase = 'pfwd-service';
        this.#send(session, encode.serviceRequest('pfwd@amt.intel.com'));
        return;
      case 'userauth-failure':
        if (session.phase !== 'auth') return fail();
        this.counters.authFailures++;
        this.#setStatus('refused');
        return;
      case 'request-success':
      case 'request-failure':
        if (session.phase !== 'forwards') return fail();
        session.forwardsPending.shift();
        if (session.forwardsPending.length > 0) this.#send(session, encode.tcpipForward(session.forwardsPending[0]!));
        else this.#ready(session);
        return;
      case 'keepalive-request':
        this.counters.keepAliveRequestsAnswered++;
        this.#send(session, encode.keepAliveReply(m.cookie));
        return;
      case 'keepalive-reply':
        this.counters.keepAliveRepliesReceived++;
        return;
      case 'keepalive-options-request':
        this.counters.keepAliveOptions++;
        if (m.interval > 0) this.#keepAliveSeconds = m.interval;
        this.#keepAliveTimeoutSeconds = m.timeout;
        this.#send(session, encode.keepAliveOptionsReply(m.interval, m.timeout));
        if (session.phase === 'ready') this.#scheduleKeepAlive(session);
        return;
      case 'channel-open':
        return this.#openChannel(session, m);
      case 'channel-data': {
        const channel = session.channels.get(m.recipient);
        if (channel) channel.receive(m.data);
        else this.counters.protocolErrors++;
        return;
      }
      case 'window-adjust':
        session.channels.get(m.recipient)?.adjust(m.bytes);
        return;
      case 'channel-close':
        session.channels.get(m.recipient)?.closedByServer();
        return;
      case 'disconnect':
        session.socket.destroy();
        return;
      case 'global-request':
      case 'channel-open-confirmation':
      case 'channel-open-failure':
        return fail();
    }
  }

  #ready(session: Session): void {
    clearTimeout(session.handshake);
    session.phase = 'ready';
    this.#failuresInRow = 0;
    this.#scheduleKeepAlive(session);
    this.#setStatus('connected');
  }

  #scheduleKeepAlive(session: Session): void {
    clearInterval(session.keepAlive);
    session.keepAlive = setInterval(() => {
      if (this.#fault === 'silent') return;
      this.counters.keepAlivesSent++;
      this.#send(session, encode.keepAliveRequest(session.cookie++));
    }, this.#keepAliveSeconds * 1000);
  }

  #openChannel(session: Session, m: Extract<ServerMessage, { type: 'channel-open' }>): void {
    const refuse = (reason: number): void => {
      this.counters.channelsRefused++;
      this.#send(session, encode.channelOpenFailure(m.sender, reason));
    };
    if (session.phase !== 'ready') return refuse(1);
    if (m.kind !== 'forwarded-tcpip') return refuse(3);
    if (!this.forwardPorts.includes(m.port) || !SERVED_PORTS.includes(m.port)) return refuse(2);
    if (session.channels.size >= (this.options.maxChannels ?? 8)) return refuse(4);
    const window = this.options.windowSize ?? 8192;
    const id = session.nextChannel++;
    const channel = new CiraChannel(id, m.sender, m.window, window, (b) => this.#send(session, b), this.counters, (c) => {
      if (session.channels.get(c.localId) === c) session.channels.delete(c.localId);
    }, this.options.dataPieces?.some((n) => n >= 1) ? this.options.dataPieces.filter((n) => n >= 1) : undefined);
    channel.on('error', () => undefined);
    session.channels.set(id, channel);
    this.counters.channelsOpened++;
    this.#send(session, encode.channelOpenConfirmation(m.sender, id, window));
    if (m.port === 16994) serveRedirection(this.state, channel);
    else if (m.port === 16995) this.#redirectionTls().emit('connection', channel);
    else this.#httpServer(m.port === 16993).emit('connection', channel);
  }

  /** The redirection port with TLS, fed with channels (made on first use). */
  #redirectionTls(): TlsServer {
    if (!this.#tlsRedirection) {
      const { key, cert } = certificatePair(this.state.certificate);
      this.#tlsRedirection = createTlsServer({ key, cert }, (socket) => serveRedirection(this.state, socket));
      this.#tlsRedirection.on('tlsClientError', () => undefined);
    }
    return this.#tlsRedirection;
  }

  /** The device's HTTP(S) face, fed with channels instead of accepted sockets (made on first use). */
  #httpServer(tls: boolean): HttpServer | HttpsServer {
    const count = (): void => void this.state.counters.connections++;
    // A channel to 16992/16993 is a management connection of the device as a LAN socket is: one tally.
    const tracker = connectionTracker(this.state);
    const track = (server: HttpServer | HttpsServer): void => {
      server.on('connection', (channel: Duplex) => tracker.opened(channel));
      server.on('request', (req, res) => tracker.answered(req, res));
      if (tls) server.on('secureConnection', (socket: Duplex) => tracker.secured(socket));
    };
    if (tls) {
      if (!this.#https) {
        const { key, cert } = certificatePair(this.state.certificate);
        this.#https = createHttpsServer({ key, cert, keepAliveTimeout: 5_000 }, this.options.requestHandler ?? deviceRequestHandler(this.state));
        this.#https.on('tlsClientError', () => undefined);
        this.#https.on('secureConnection', count);
        track(this.#https);
      }
      return this.#https;
    }
    if (!this.#http) {
      this.#http = createHttpServer({ keepAliveTimeout: 5_000 }, this.options.requestHandler ?? deviceRequestHandler(this.state));
      this.#http.on('connection', count);
      track(this.#http);
    }
    return this.#http;
  }

  #onClose(session: Session): void {
    clearTimeout(session.handshake);
    clearInterval(session.keepAlive);
    for (const channel of session.channels.values()) channel.destroy();
    session.channels.clear();
    if (this.#session !== session) return;
    this.#session = undefined;
    this.counters.disconnects++;
    if (this.#status !== 'refused') this.#setStatus('disconnected');
    if (session.phase !== 'ready') this.#failuresInRow++;
    const delay = this.options.reconnectMs ?? 2_000;
    if (!this.#wanted || delay <= 0) {
      if (!this.#wanted) this.#setStatus('stopped');
      return;
    }
    // Like firmware: a few quick retries, then a long wait.
    const wait = this.#failuresInRow > 3 ? delay * 10 : delay;
    this.#reconnect = setTimeout(() => {
      this.#reconnect = undefined;
      if (this.#wanted) this.#connect();
    }, wait);
    this.#reconnect.unref();
  }
}
