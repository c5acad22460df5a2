/**
 * One device's APF session over its TLS socket: the handshake as a small state machine, then
 * forwards, keep-alives and channels. A malformed or out-of-order message ends this tunnel only.
 * An idle tunnel holds no timer and no buffer: keep-alive and auth deadlines are checked by the
 * registry's single sweep against `connectedAt` / `lastSeenAt`.
 */
import * as build from '../apf/apf-build.js';
import { parseApfMessage, type ApfMessage } from '../apf/apf-parse.js';
import { ApfType, AUTH_SERVICE, CANCEL_TCPIP_FORWARD, DisconnectReason, OpenFailureReason, PFWD_SERVICE, TCPIP_FORWARD } from '../apf/apf-protocol.js';
import type { CiraConnection, CiraDownReason, OpenChannelOptions, TunnelIdentity } from '../api.js';
import { CiraChannelError } from '../errors.js';
import type { ApfChannel } from './apf-channel.js';
import { ChannelTable } from './channel-table.js';
import { ReceiveBuffer } from './receive-buffer.js';
import { PartialChannelData } from './partial-channel-data.js';
import { forwardRefusal } from './forward-requests.js';
import { acceptsMessageType } from './state-messages.js';
import type { TunnelPeer, TunnelSocket } from './tunnel-socket.js';

export type TunnelState = 'version' | 'auth-service' | 'auth' | 'checking' | 'pfwd-service' | 'forwarding' | 'settled';
/** Why a tunnel ended: the down reasons, plus the endings of tunnels that never came up. */
export type TunnelEndReason = CiraDownReason | 'auth-failed' | 'auth-timeout' | 'refused';

export type TunnelNote = 'malformed' | 'out-of-order' | 'unknown-channel' | 'window-overrun' | 'not-reading' | 'too-many-auth-requests' | 'too-many-refused-forwards';

export interface TunnelLimits {
  maxMessageBytes: number;
  /** Bounds before sign-in: largest message, and USERAUTH_REQUESTs per connection (any method). */
  preAuth: { maxMessageBytes: number; maxAuthRequests: number };
  /** Forwarded ports per tunnel; refused requests beyond it as many again end the tunnel. */
  maxForwardsPerTunnel: number;
  maxChannelsPerTunnel: number;
  channelWindowBytes: number;
  channelOpenTimeoutMs: number;
  forwardSettleMs: number;
  keepAliveIntervalSeconds: number;
  keepAliveTimeoutSeconds: number;
}

/** What a tunnel asks of the server that owns it. */
export interface TunnelHost {
  readonly limits: TunnelLimits;
  /** Checks MPS credentials (slow-down of repeated failures included). */
  authenticate(username: string, password: string, remoteAddress: string): Promise<boolean>;
  /** Authenticated and forwards settled: time to resolve the device and announce it. */
  settled(tunnel: ApfTunnel): void;
  ended(tunnel: ApfTunnel, reason: TunnelEndReason): void;
  /** A protocol violation or an ignored message, for the logs and counters. */
  noted(tunnel: ApfTunnel, event: TunnelNote, detail: string): void;
}

const PORT_5900_IS_LAST = 5900;

export class ApfTunnel {
  state: TunnelState = 'version';
  uuid = '';
  username = '';
  deviceId: string | null = null;
  /** Whether the tunnel is known to be its device; set when resolved. */
  identity: TunnelIdentity = 'unverified';
  /** Announced up (so its end is announced down). */
  announced = false;
  readonly connectedAt = Date.now();
  lastSeenAt = Date.now();
  lastKeepAliveAt: number | null = null;
  readonly forwardedPorts = new Set<number>();
  readonly remoteAddress: string;
  readonly remotePort: number;
  private channels: ChannelTable | null = null;
  private readonly onSignedIn: (() => void) | undefined;
  private readonly received = new ReceiveBuffer();
  private readonly partialData = new PartialChannelData();
  private settleTimer: NodeJS.Timeout | null = null;
  private ended = false;
  private authRequests = 0;
  private refusedForwards = 0;

  constructor(
    private readonly socket: TunnelSocket,
    private readonly host: TunnelHost,
    /**
     * The device's address (the TCP peer, or the source in the PROXY v2 header HAProxy sent), and what
     * to call once it signed in (its connection then stops counting as unauthenticated).
     */
    peer: TunnelPeer,
  ) {
    this.onSignedIn = peer.signedIn;
    this.remoteAddress = peer.address ?? '';
    this.remotePort = peer.port ?? 0;
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => this.end('closed'));
    socket.on('close', () => this.end('closed'));
  }

  get closed(): boolean {
    return this.ended;
  }

  get authenticated(): boolean {
    return this.state === 'pfwd-service' || this.state === 'forwarding' || this.state === 'settled';
  }

  /** APF bytes received and not parsed yet. */
  get bufferedBytes(): number {
    return this.received.size;
  }

  /** The most bytes this tunnel held unparsed between two reads. */
  get peakBufferedBytes(): number {
    return this.received.peak;
  }

  get openChannels(): number {
    return this.channels?.size ?? 0;
  }

  view(): CiraConnection {
    return {
      deviceId: this.deviceId ?? this.uuid,
      uuid: this.uuid,
      remoteAddress: this.remoteAddress,
      remotePort: this.remotePort,
      username: this.username,
      connectedAt: new Date(this.connectedAt).toISOString(),
      lastKeepAliveAt: this.lastKeepAliveAt === null ? null : new Date(this.lastKeepAliveAt).toISOString(),
      forwardedPorts: [...this.forwardedPorts],
      openChannels: this.openChannels,
      identity: this.identity,
      verified: this.identity !== 'unverified',
    };
  }

  /** Ends the tunnel: pending opens fail, channels are destroyed, the device gets a DISCONNECT when it is our decision. */
  end(reason: TunnelEndReason): void {
    if (this.ended) return;
    this.ended = true;
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.channels?.closeAll();
    this.channels = null;
    this.received.clear();
    if (reason !== 'closed' && !this.socket.destroyed) {
      // Nothing more is read from a peer we are done with while our last words go out.
      this.socket.pause();
      const code = reason === 'protocol-error' ? DisconnectReason.PROTOCOL_ERROR : reason === 'auth-timeout' || reason === 'keepalive-timeout' ? DisconnectReason.CONNECTION_TIMED_OUT : DisconnectReason.BY_APPLICATION;
      if (reason === 'auth-failed') this.socket.end();
      else this.socket.end(build.buildDisconnect(code));
      setTimeout(() => this.socket.destroy(), 2000).unref();
    } else {
      this.socket.destroy();
    }
    this.host.ended(this, reason);
  }

  /** Opens a `forwarded-tcpip` channel to `port`; resolves once the device confirms. */
  openChannel(port: number, options: OpenChannelOptions = {}): Promise<ApfChannel> {
    const limits = this.host.limits;
    if (this.ended) return Promise.reject(new CiraChannelError('GW_ERR_CIRA_TUNNEL_CLOSED', 'the CIRA tunnel closed'));
    if (!this.forwardedPorts.has(port)) return Promise.reject(new CiraChannelError('GW_ERR_CIRA_PORT_NOT_FORWARDED', `the device does not forward port ${port}`));
    if (this.openChannels >= limits.maxChannelsPerTunnel) {
      return Promise.reject(new CiraChannelError('GW_ERR_CIRA_CHANNEL_LIMIT', `${this.openChannels} channels are open on this tunnel, the most allowed`));
    }
    this.channels ??= new ChannelTable({
      send: (m) => this.send(m),
      unknown: (detail) => this.host.noted(this, 'unknown-channel', detail),
      overrun: (detail) => this.violation('window-overrun', detail),
      windowBytes: limits.channelWindowBytes,
      openTimeoutMs: limits.channelOpenTimeoutMs,
    });
    return this.channels.open(port, options);
  }

  private send(message: Buffer): void {
    if (!this.ended && !this.socket.destroyed) this.socket.write(message);
  }

  private onData(chunk: Buffer): void {
    if (this.ended) return;
    this.lastSeenAt = Date.now();
    if (this.partialData.active) chunk = this.partialData.continue(chunk, (piece) => this.handle(piece));
    if (chunk.length === 0 || this.ended) return;
    if (this.received.push(chunk)) this.drain();
  }

  private drain(): void {
    const buf = this.received.joined();
    if (!buf) return;
    let offset = 0;
    let need = 0;
    while (!this.ended && this.state !== 'checking') {
      // Refused from its first byte: a message the state does not take is never waited for.
      if (offset < buf.length && !acceptsMessageType(this.state, buf[offset]!)) return this.violation('out-of-order', `message type ${buf[offset]} in state ${this.state}`);
      if (this.authenticated && this.partialData.start(buf, offset, this.host.limits.maxMessageBytes, (piece) => this.handle(piece))) {
        offset = buf.length;
        break;
      }
      const result = parseApfMessage(buf, offset, this.authenticated ? this.host.limits : this.host.limits.preAuth);
      if (result.kind === 'need-more') {
        need = result.atLeast;
        break;
      }
      if (result.kind === 'malformed') return this.violation('malformed', result.reason);
      offset += result.bytes;
      this.handle(result.message);
    }
    if (this.ended) return;
    // A device that keeps asking (keep-alives) but does not read the answers would grow our send buffer.
    if (this.socket.writableLength > 4 * this.host.limits.maxMessageBytes) return this.violation('not-reading', `${this.socket.writableLength} bytes unsent`);
    // Before sign-in only the start of one small message may wait (or, while the password is checked, what followed it).
    const restBytes = buf.length - offset;
    if (!this.authenticated && restBytes > this.host.limits.preAuth.maxMessageBytes) return this.violation('malformed', `${restBytes} bytes waiting before sign-in`);
    this.received.keep(buf, offset, need);
  }

  private violation(event: Exclude<TunnelNote, 'unknown-channel'>, detail: string): void {
    this.host.noted(this, event, detail);
    this.end('protocol-error');
  }

  private outOfOrder(message: ApfMessage): void {
    this.violation('out-of-order', `message type ${message.type} in state ${this.state}`);
  }

  private handle(message: ApfMessage): void {
    if (message.type === ApfType.DISCONNECT) return this.end('closed');
    switch (this.state) {
      case 'version':
        if (message.type !== ApfType.PROTOCOLVERSION) return this.outOfOrder(message);
        if (message.major !== 1) return this.violation('malformed', `protocol version ${message.major}.${message.minor}`);
        this.uuid = message.uuid;
        this.state = 'auth-service';
        return;
      case 'auth-service':
        if (message.type !== ApfType.SERVICE_REQUEST || message.service !== AUTH_SERVICE) return this.outOfOrder(message);
        this.send(build.buildServiceAccept(AUTH_SERVICE));
        this.state = 'auth';
        return;
      case 'auth':
        if (message.type !== ApfType.USERAUTH_REQUEST) return this.outOfOrder(message);
        if (++this.authRequests > this.host.limits.preAuth.maxAuthRequests) return this.violation('too-many-auth-requests', `${this.authRequests} USERAUTH_REQUESTs`);
        if (message.password === null) return this.send(build.buildUserAuthFailure());
        return this.checkPassword(message.username, message.password);
      case 'pfwd-service':
        if (message.type === ApfType.SERVICE_REQUEST && message.service === PFWD_SERVICE) {
          this.send(build.buildServiceAccept(PFWD_SERVICE));
          this.state = 'forwarding';
          this.armSettle();
          return;
        }
        if (message.type === ApfType.KEEPALIVE_REQUEST || message.type === ApfType.KEEPALIVE_REPLY) return this.handleSession(message);
        return this.outOfOrder(message);
      default:
        return this.handleSession(message);
    }
  }

  private checkPassword(username: string, password: string): void {
    this.state = 'checking';
    this.socket.pause();
    this.host.authenticate(username, password, this.remoteAddress).then(
      (ok) => {
        if (this.ended) return;
        if (!ok) {
          this.send(build.buildUserAuthFailure());
          return this.end('auth-failed');
        }
        this.username = username;
        this.state = 'pfwd-service';
        this.onSignedIn?.();
        this.send(build.buildUserAuthSuccess());
        this.socket.resume();
        this.drain();
      },
      () => this.end('auth-failed'),
    );
  }

  /** Messages of an authenticated tunnel. */
  private handleSession(message: ApfMessage): void {
    switch (message.type) {
      case ApfType.GLOBAL_REQUEST:
        return this.globalRequest(message);
      case ApfType.KEEPALIVE_REQUEST:
        this.lastKeepAliveAt = Date.now();
        return this.send(build.buildKeepAliveReply(message.cookie));
      case ApfType.KEEPALIVE_REPLY:
      case ApfType.KEEPALIVE_OPTIONS_REPLY:
        this.lastKeepAliveAt = Date.now();
        return;
      case ApfType.CHANNEL_OPEN:
        return this.send(build.buildChannelOpenFailure(message.sender, OpenFailureReason.UNKNOWN_CHANNEL_TYPE));
      case ApfType.CHANNEL_OPEN_CONFIRMATION:
        return this.channelMessage((t) => t.confirmed(message), `confirmation for channel ${message.recipient}`);
      case ApfType.CHANNEL_OPEN_FAILURE:
        return this.channelMessage((t) => t.refused(message), `open failure for channel ${message.recipient}`);
      case ApfType.CHANNEL_WINDOW_ADJUST:
        return this.channelMessage((t) => t.windowAdjusted(message), `window adjust for channel ${message.recipient}`);
      case ApfType.CHANNEL_DATA:
        return this.channelMessage((t) => t.data(message), `data for channel ${message.recipient}`);
      case ApfType.CHANNEL_CLOSE:
        return this.channelMessage((t) => t.closed(message), `close for channel ${message.recipient}`);
      default:
        return this.outOfOrder(message);
    }
  }

  /** Channel messages before any channel was opened are for unknown channels: noted and dropped. */
  private channelMessage(act: (table: ChannelTable) => void, detail: string): void {
    if (this.channels) act(this.channels);
    else this.host.noted(this, 'unknown-channel', detail);
  }

  private globalRequest(message: Extract<ApfMessage, { type: typeof ApfType.GLOBAL_REQUEST }>): void {
    if (message.name === TCPIP_FORWARD && message.port !== null) {
      const refusal = forwardRefusal(this.forwardedPorts, message.port, this.host.limits.maxForwardsPerTunnel);
      if (refusal) {
        if (++this.refusedForwards > this.host.limits.maxForwardsPerTunnel) return this.violation('too-many-refused-forwards', refusal);
        if (message.wantReply) this.send(build.buildRequestFailure());
        return;
      }
      this.forwardedPorts.add(message.port);
      if (message.wantReply) this.send(build.buildRequestSuccess(message.port));
      if (this.state === 'forwarding') {
        if (message.port === PORT_5900_IS_LAST) this.settle();
        else this.armSettle();
      }
      return;
    }
    if (message.name === CANCEL_TCPIP_FORWARD && message.port !== null) {
      this.forwardedPorts.delete(message.port);
      if (message.wantReply) this.send(build.buildRequestSuccess());
      return;
    }
    if (message.wantReply) this.send(build.buildRequestFailure());
  }

  private armSettle(): void {
    if (this.settleTimer) this.settleTimer.refresh();
    else this.settleTimer = setTimeout(() => this.settle(), this.host.limits.forwardSettleMs);
  }

  private settle(): void {
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.settleTimer = null;
    if (this.ended || this.state !== 'forwarding') return;
    this.state = 'settled';
    const { keepAliveIntervalSeconds, keepAliveTimeoutSeconds } = this.host.limits;
    this.send(build.buildKeepAliveOptionsRequest(keepAliveIntervalSeconds, keepAliveTimeoutSeconds));
    this.host.settled(this);
  }
}
