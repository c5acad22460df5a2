import type { WebSocket, RawData } from 'ws';
import type { AuthenticatedUser, Logger } from '../../core/plugin-api.js';
import type { HubConfig } from './config.js';
import { permittedEvents, type HubEventName, type OutgoingEvent } from './hub-events.js';
import { invokeHubMethod, ScanSubscriptions } from './hub-methods.js';
import type { FlushScheduler } from './flush-scheduler.js';
import { Outbox } from './outbox.js';
import { RecordReader } from './record-reader.js';
import {
  checkHandshake,
  closeRecord,
  completionRecord,
  handshakeResponseRecord,
  MessageType,
  parseClientMessage,
  PING_RECORD,
  ProtocolError,
  type ClientMessage,
} from './protocol.js';

type State = 'handshake' | 'open' | 'closing' | 'closed';

/** Why the hub ends a connection, as its Close message says. */
export interface CloseReason {
  error?: string;
  allowReconnect?: boolean;
}

export interface ClientConnectionOptions {
  connectionId: string;
  user: AuthenticatedUser;
  /** The bearer token the client presented, kept to check it again later; never logged. */
  bearer: string;
  /** Resolves the token to its user now (null: revoked or expired). */
  verifyToken: (bearer: string) => Promise<AuthenticatedUser | null>;
  config: HubConfig;
  logger: Logger;
  scheduler: FlushScheduler;
  onClosed: (connection: ClientConnection) => void;
}

const PING_KEY = '\0ping';

/** One hub client over one WebSocket: handshake, its messages, what it may receive, its outbox and timeouts. */
export class ClientConnection {
  readonly connectionId: string;
  private user: AuthenticatedUser;
  private allowed: Set<HubEventName>;
  private state: State = 'handshake';
  private readonly reader: RecordReader;
  private readonly outbox: Outbox;
  private readonly subscriptions: ScanSubscriptions;
  private readonly openedAt = performance.now();
  private lastReceivedAt = this.openedAt;
  private lastSentAt = this.openedAt;
  private authCheckedAt = this.openedAt;
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly options: ClientConnectionOptions,
  ) {
    this.connectionId = options.connectionId;
    this.user = options.user;
    this.allowed = permittedEvents(options.user.permissions);
    this.reader = new RecordReader(options.config.maxMessageBytes);
    this.subscriptions = new ScanSubscriptions(options.config.maxSubscriptions);
    this.outbox = new Outbox(
      { get bufferedAmount() { return ws.bufferedAmount; }, send: (frame, written) => ws.send(frame, { binary: false }, written) },
      options.config,
      options.scheduler,
      () => {
        this.log('info', 'hub client dropped: it is not reading and its send buffer is full', { queuedLimitBytes: options.config.maxQueuedBytes });
        this.end(closeRecord({ error: 'The client does not read its messages fast enough; its send buffer is full.', allowReconnect: true }), false);
      },
    );
    ws.on('message', (data) => this.onFrame(data));
    ws.on('error', (err) => this.log('debug', 'hub socket error', { error: err.message }));
    ws.once('close', () => this.onSocketClosed());
  }

  /** Sends an event if this client may and wants to receive it. */
  deliver(event: OutgoingEvent): void {
    if (this.state !== 'open' || !this.allowed.has(event.name)) return;
    if (event.scanId !== undefined && !this.subscriptions.wants(event.scanId)) return;
    this.send(event.frame, event.coalesceKey);
  }

  /** The immutable id of the user the connection runs for. */
  get userId(): string {
    return this.user.id;
  }

  /** Checks the token again now (its user's access was revoked or narrowed): closes or narrows the connection at once. */
  recheckNow(): void {
    this.recheckToken(performance.now());
  }

  /** Applies a fresh token check: new permissions, or the end of the connection when the token no longer holds. */
  private reauthorize(user: AuthenticatedUser | null): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    if (!user || user.id !== this.user.id) {
      this.close({ error: 'Unauthorized: the token has expired or was revoked.' });
      return;
    }
    this.user = user;
    this.allowed = permittedEvents(user.permissions);
  }

  /** Time-driven duties, run by the registry's heartbeat: handshake and idle timeouts, keep-alive pings, token checks. */
  tick(now: number): void {
    const { config } = this.options;
    if (this.state === 'open' && now - this.authCheckedAt >= config.authRecheckIntervalMs) this.recheckToken(now);
    if (this.state === 'handshake' && now - this.openedAt > config.handshakeTimeoutMs) {
      this.end(handshakeResponseRecord('Handshake was canceled: no handshake request within the timeout.'));
    } else if (this.state === 'open') {
      if (now - this.lastReceivedAt > config.clientTimeoutMs) {
        this.log('debug', 'hub client timed out');
        this.close({ error: `Connection timed out: no message from the client within ${config.clientTimeoutMs} ms.` });
      } else if (now - this.lastSentAt >= config.keepAliveIntervalMs) {
        this.send(PING_RECORD, PING_KEY);
      }
    }
  }

  /**
   * Ends the connection: a Close message (once the handshake is done), then the WebSocket close;
   * a client that does not finish closing within `closeGraceMs` is cut off.
   */
  close(reason: CloseReason): void {
    this.end(this.state === 'open' ? closeRecord(reason) : undefined);
  }

  /**
   * Sends `lastFrame` after what the socket already holds and closes. What waits in the outbox goes
   * first as far as the socket takes it (`flushFirst`), or is dropped (a client over its bound).
   */
  private end(lastFrame: Buffer | undefined, flushFirst = true): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    this.state = 'closing';
    if (flushFirst) this.outbox.flush();
    this.outbox.clear();
    if (lastFrame) this.ws.send(lastFrame, { binary: false }, () => undefined);
    this.ws.close(1000);
    this.graceTimer = setTimeout(() => this.ws.terminate(), this.options.config.closeGraceMs);
    this.graceTimer.unref();
  }

  private recheckToken(now: number): void {
    this.authCheckedAt = now;
    this.options.verifyToken(this.options.bearer).then(
      (user) => this.reauthorize(user),
      (err: unknown) => this.log('info', 'hub token check failed; trying again later', { error: err instanceof Error ? err.message : String(err) }),
    );
  }

  private send(frame: Buffer, key?: string): void {
    this.lastSentAt = performance.now();
    this.outbox.push(frame, key);
  }

  private onFrame(data: RawData): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    this.lastReceivedAt = performance.now();
    const frame = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    let records: string[];
    try {
      records = this.reader.push(frame);
    } catch (err) {
      return this.fail(err);
    }
    for (const record of records) {
      if (this.state === 'handshake') this.onHandshake(record);
      else if (this.state === 'open') this.onRecord(record);
      else break;
    }
  }

  private onHandshake(record: string): void {
    const error = checkHandshake(record);
    if (error) {
      this.log('debug', 'hub handshake refused', { reason: error });
      this.end(handshakeResponseRecord(error));
      return;
    }
    this.send(handshakeResponseRecord());
    this.state = 'open';
    this.log('debug', 'hub client connected');
  }

  private onRecord(record: string): void {
    let message: ClientMessage;
    try {
      message = parseClientMessage(record);
    } catch (err) {
      return this.fail(err);
    }
    switch (message.type) {
      case MessageType.Invocation: {
        const outcome = invokeHubMethod(message.target, message.arguments, this.subscriptions);
        if (message.invocationId !== undefined) this.send(completionRecord(message.invocationId, outcome));
        return;
      }
      case MessageType.StreamInvocation:
        this.send(completionRecord(message.invocationId, { error: `'${message.target.slice(0, 100)}' is not a streaming method of this hub` }));
        return;
      case MessageType.Close:
        this.end(undefined);
        return;
      default:
        return;
    }
  }

  private fail(err: unknown): void {
    const reason = err instanceof ProtocolError ? err.message : 'the message could not be read';
    this.log('debug', 'hub protocol error', { reason, ...(err instanceof ProtocolError ? {} : { error: String(err) }) });
    if (this.state === 'handshake') this.end(handshakeResponseRecord(reason));
    else this.close({ error: `Connection closed with an error: ${reason}` });
  }

  private onSocketClosed(): void {
    this.state = 'closed';
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.outbox.clear();
    this.log('debug', 'hub client disconnected');
    this.options.onClosed(this);
  }

  private log(level: 'debug' | 'info', message: string, fields: Record<string, unknown> = {}): void {
    this.options.logger[level](message, { connectionId: this.connectionId, user: this.user.username, ...fields });
  }
}
