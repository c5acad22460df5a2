import { randomBytes } from 'node:crypto';
import type { HubConnectionsChangedEvent } from './api.js';
import type { WebSocket } from 'ws';
import type { AccessRevokedEvent, AuthenticatedUser, Logger, PluginAuth } from '../../core/plugin-api.js';
import type { HubConfig } from './config.js';
import { ClientConnection } from './client-connection.js';
import { HubErrors } from './errors.js';
import type { OutgoingEvent } from './hub-events.js';
import { FlushScheduler } from './flush-scheduler.js';

interface Slot {
  connectionId: string;
  /** The immutable id of the user who negotiated it: only that user's socket may claim it. */
  userId: string;
  /** Unused negotiated ids expire; a claimed one lives as long as its socket. */
  expiresAt: number;
  claimed: boolean;
}

/** A negotiated connection: what `POST /scanHub/negotiate` answers. */
export interface Negotiated {
  connectionId: string;
  connectionToken: string;
}

/** A socket the registry let in: the connection id it runs under and the key to release. */
export interface Claim {
  key: string;
  connectionId: string;
}

const newId = () => randomBytes(16).toString('base64url');

/**
 * Every hub connection of this gateway: negotiated ids waiting for their socket, open
 * connections, and the one heartbeat timer that runs their timeouts, pings and token checks.
 */
export class ConnectionRegistry {
  private readonly slots = new Map<string, Slot>();
  /** Slots held per user id, for the per-user bound. */
  private readonly perUser = new Map<string, number>();
  private readonly connections = new Set<ClientConnection>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly scheduler: FlushScheduler;
  private closing = false;
  private drained: (() => void) | undefined;

  constructor(
    private readonly config: HubConfig,
    private readonly auth: PluginAuth,
    private readonly logger: Logger,
    /** Told of every connection that opens or closes, for metrics. */
    private readonly counted?: (event: HubConnectionsChangedEvent) => void,
  ) {
    this.scheduler = new FlushScheduler(config.flushIntervalMs);
    const period = Math.max(10, Math.min(250, config.keepAliveIntervalMs / 4, config.clientTimeoutMs / 4, config.handshakeTimeoutMs / 4));
    this.heartbeat = setInterval(() => this.tick(), period);
    this.heartbeat.unref();
  }

  /** True once the hub stopped taking connections. */
  get isClosing(): boolean {
    return this.closing;
  }

  /** Reserves a connection for a later socket; throws 503 when the hub is full or stopping, 429 when the user holds its bound. */
  negotiate(user: AuthenticatedUser): Negotiated {
    this.checkCapacity(user);
    const connectionToken = newId();
    const connectionId = newId();
    this.addSlot(connectionToken, { connectionId, userId: user.id, expiresAt: performance.now() + this.config.clientTimeoutMs, claimed: false });
    return { connectionId, connectionToken };
  }

  /**
   * Admits a socket: for the negotiated `id` (404 unknown, 409 taken, 403 another user's) or, without
   * one, a connection of its own (clients that skip negotiation). Throws the refusal as an HttpError.
   */
  claim(id: string | null, user: AuthenticatedUser): Claim {
    if (id === null) {
      this.checkCapacity(user);
      const key = newId();
      const connectionId = newId();
      this.addSlot(key, { connectionId, userId: user.id, expiresAt: Infinity, claimed: true });
      return { key, connectionId };
    }
    if (this.closing) throw HubErrors.unavailable();
    const slot = this.slots.get(id);
    if (!slot) throw HubErrors.unknownConnection();
    if (slot.claimed) throw HubErrors.connectionInUse();
    if (slot.userId !== user.id) throw HubErrors.forbidden();
    slot.claimed = true;
    slot.expiresAt = Infinity;
    return { key: id, connectionId: slot.connectionId };
  }

  /** Frees a claim once its socket is gone: the id cannot be used again. */
  release(claim: Claim): void {
    this.deleteSlot(claim.key);
  }

  /** Runs the hub protocol on an accepted WebSocket. */
  open(ws: WebSocket, claim: Claim, user: AuthenticatedUser, bearer: string): void {
    const connection = new ClientConnection(ws, {
      connectionId: claim.connectionId,
      user,
      bearer,
      verifyToken: (token) => this.auth.verifyToken(token),
      config: this.config,
      logger: this.logger,
      scheduler: this.scheduler,
      onClosed: (c) => {
        if (this.connections.delete(c)) this.counted?.({ change: 'closed', open: this.connections.size });
        this.release(claim);
        if (this.connections.size === 0) this.drained?.();
      },
    });
    this.connections.add(connection);
    this.counted?.({ change: 'opened', open: this.connections.size });
    if (this.closing) connection.close({ allowReconnect: true });
  }

  /**
   * A user's access was revoked or narrowed: each of its connections checks its token at once, so a
   * revoked token ends its connection and changed permissions apply before the next event.
   */
  revoked(event: AccessRevokedEvent): void {
    for (const connection of this.connections) if (connection.userId === event.userId) connection.recheckNow();
  }

  /** Offers an event to every connection; each decides by its permissions and subscriptions. */
  broadcast(event: OutgoingEvent): void {
    for (const connection of this.connections) connection.deliver(event);
  }

  /**
   * Stops taking connections and closes every open one with a Close message (allowReconnect, so that
   * clients come back once the gateway does). Resolves when every socket is gone.
   */
  async closeAll(): Promise<void> {
    this.closing = true;
    for (const [key, slot] of this.slots) if (!slot.claimed) this.deleteSlot(key);
    if (this.connections.size > 0) {
      const drained = new Promise<void>((resolve) => (this.drained = resolve));
      for (const connection of this.connections) connection.close({ allowReconnect: true });
      await drained;
    }
  }

  /** Stops the heartbeat (after closeAll). */
  dispose(): void {
    clearInterval(this.heartbeat);
    this.scheduler.dispose();
  }

  /** 503 when the hub is full or stopping; 429 when the user holds its own bound of connections. */
  private checkCapacity(user: AuthenticatedUser): void {
    if (this.closing || this.slots.size >= this.config.maxConnections) throw HubErrors.unavailable();
    if ((this.perUser.get(user.id) ?? 0) >= this.config.maxConnectionsPerUser) throw HubErrors.userLimit(this.config.maxConnectionsPerUser);
  }

  private addSlot(key: string, slot: Slot): void {
    this.slots.set(key, slot);
    this.perUser.set(slot.userId, (this.perUser.get(slot.userId) ?? 0) + 1);
  }

  private deleteSlot(key: string): void {
    const slot = this.slots.get(key);
    if (!slot) return;
    this.slots.delete(key);
    const left = (this.perUser.get(slot.userId) ?? 1) - 1;
    if (left > 0) this.perUser.set(slot.userId, left);
    else this.perUser.delete(slot.userId);
  }

  private tick(): void {
    const now = performance.now();
    for (const [key, slot] of this.slots) if (now > slot.expiresAt) this.deleteSlot(key);
    for (const connection of this.connections) connection.tick(now);
  }
}
