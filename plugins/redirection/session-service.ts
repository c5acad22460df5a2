/**
 * Remote console sessions: a ticket is issued after the device says the mode is enabled and needs no
 * consent it lacks; the ticket's WebSocket then holds the device's slot, opens the redirection
 * session through the device gate (sign-in memory, credentials, pinning, tunnel) and relays. Sessions
 * end on either side's close, an operator's DELETE, the idle bound, or at once when their sign-in is
 * revoked or their user loses `remote:connect` (revocation.ts); every start and end is logged without a secret.
 */
import type { Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import type { AuthenticatedUser, EventBus, Logger, PluginAuth, RequestActor } from '../../core/plugin-api.js';
import type { Device, DeviceRegistry, SessionRequest } from 'amt-gateway/devices';
import type { AuditTrail } from 'amt-gateway/audit';
import type { OpenRedirection } from '../../workers/amt/redirection/redirection-session.js';
import type { RedirectionConfig } from './config.js';
import { needsConsent, type RedirectionReads, type SessionMode } from './device-state.js';
import { RedirectionErrors } from './errors.js';
import { KVM_MODE } from './modes/kvm.js';
import type { ModeSpec, SessionCodec } from './modes/mode.js';
import { SOL_MODE } from './modes/sol.js';
import { startRelay, type RelayedBytes } from './relay.js';
import { createRevocation } from './revocation.js';
import { PERMISSION } from './permission.js';
import { createSessionRegistry, type EndReason, type LiveSession } from './sessions.js';
import { createTicketStore, type Ticket, type TicketOwner } from './tickets.js';

export const RELAY_PATH = '/api/redirection/relay';
export { PERMISSION };
const MODES: Record<SessionMode, ModeSpec> = { kvm: KVM_MODE, sol: SOL_MODE };

/** The viewer's WebSocket and the upgraded connection under it. */
export interface Viewer {
  ws: WebSocket;
  socket: Writable;
}

export type { SessionTicket } from './schemas.js';
import type { SessionTicket } from './schemas.js';

export interface SessionServiceDeps {
  devices: DeviceRegistry;
  reads: RedirectionReads;
  /** Opens and signs in a session through the device gate (16994/16995 or a tunnel channel; the credential stays in the gate). */
  openSession(device: Readonly<Device>, request: SessionRequest<SessionCodec>): Promise<OpenRedirection<SessionCodec>>;
  auth: PluginAuth;
  logger: Logger;
  config: RedirectionConfig;
  /** Session opened and closed events (counted by the metrics plugin). */
  events: EventBus;
  /** The audit trail, when its plugin is on: every session's end is recorded. */
  audit: AuditTrail | undefined;
  /** Query parameters a ticket's URL carries besides the ticket (in a cluster: the instance holding it). */
  ticketQuery?: () => string;
}

export function createSessionService({ devices, reads, openSession, auth, logger, config, events, audit, ticketQuery }: SessionServiceDeps) {
  /** Who ended a session through the API, for the audit record of its end. */
  const endedBy = new Map<string, RequestActor>();
  const tickets = createTicketStore(config.ticketTtlSeconds * 1000, config.maxTicketsPerUser);
  const registry = createSessionRegistry(config.maxSessions, config.maxSessionsPerUser, config.ider.maxSessionsPerUser);
  const known = (id: string) => devices.require(id);

  /** Issues a ticket for `user`'s sign-in `tokenId`: bounded by the user's own tickets and sessions, never another user's. */
  async function create(user: AuthenticatedUser, tokenId: string, deviceId: string, mode: SessionMode | 'ider'): Promise<SessionTicket> {
    const device = known(deviceId);
    if (mode === 'ider') throw RedirectionErrors.modeUnsupported(mode);
    if (registry.userFull(user.id, mode)) throw RedirectionErrors.userSessions(config.maxSessionsPerUser);
    if (registry.busy(device.id, mode)) throw RedirectionErrors.busy(device, mode);
    const state = await reads.read(device);
    if (!state.features[mode]) throw RedirectionErrors.disabled(device, mode);
    if (needsConsent(state, mode)) throw RedirectionErrors.consentRequired(device);
    const owner: TicketOwner = { userId: user.id, username: user.username, tokenId };
    const issued = tickets.issue(owner, device.id, mode);
    if ('retryAfterSeconds' in issued) throw RedirectionErrors.userTickets(config.maxTicketsPerUser, issued.retryAfterSeconds);
    return { id: issued.value.sessionId, mode, deviceId: device.id, url: `${RELAY_PATH}?ticket=${issued.ticket}${ticketQuery?.() ?? ''}`, expiresAt: new Date(issued.value.expiresAtMs).toISOString() };
  }

  /**
   * Admits a ticket's WebSocket: spends the ticket, checks its user, holds the device's slot and opens
   * the device session. Throws an HttpError (answered on the upgrade) when any of it fails; `accept`
   * then upgrades and the relay starts.
   */
  async function connect(ticketText: string, address: string, accept: () => Promise<Viewer>): Promise<void> {
    const ticket = tickets.take(ticketText);
    if (!ticket) throw RedirectionErrors.ticketInvalid();
    const user = await auth.userById(ticket.userId);
    if (!user?.permissions.includes(PERMISSION)) throw RedirectionErrors.forbidden();
    const device = known(ticket.deviceId);
    if (registry.userFull(ticket.userId, ticket.mode)) throw RedirectionErrors.userSessions(config.maxSessionsPerUser);
    if (registry.full()) throw RedirectionErrors.tooManySessions();
    const release = registry.reserve(device.id, ticket.mode, ticket.userId);
    if (!release) throw RedirectionErrors.busy(device, ticket.mode);
    try {
      const spec = MODES[ticket.mode];
      // KVM carries the screen, megabytes a second: read into reused slabs (slab-reads.ts).
      const opened = await openSession(device, { mode: spec.mode, begin: spec.begin, slabReads: ticket.mode === 'kvm' })
        .catch((err: { code?: string }) => {
          if (err.code === 'GW_ERR_DEVICE_BUSY') throw RedirectionErrors.busy(device, ticket.mode);
          if (err.code === 'GW_ERR_DEVICE_UNSUPPORTED') throw RedirectionErrors.disabled(device, ticket.mode);
          throw err;
        });
      const viewer = await accept().catch((err: unknown) => {
        opened.stream.destroy();
        throw err;
      });
      run(ticket, address, viewer, opened);
    } finally {
      release();
    }
  }

  function run(ticket: Ticket, address: string, { ws, socket }: Viewer, opened: OpenRedirection<SessionCodec>): void {
    const startedMs = Date.now();
    const session: LiveSession = {
      id: ticket.sessionId,
      mode: ticket.mode,
      deviceId: ticket.deviceId,
      user: ticket.username,
      userId: ticket.userId,
      tokenId: ticket.tokenId,
      startedAt: new Date(startedMs).toISOString(),
      get bytesToDevice() {
        return relay.bytesToDevice;
      },
      get bytesFromDevice() {
        return relay.bytesFromDevice;
      },
      end: (reason) => relay.end(reason),
    };
    // Reads nothing of `relay`: it runs before `startRelay` returns when the codec refuses the leftover bytes.
    const onEnd = (reason: EndReason, { bytesToDevice, bytesFromDevice }: RelayedBytes) => {
      registry.closed(session);
      const durationMs = Date.now() - startedMs;
      logger.info('remote console session ended', { sessionId: session.id, user: session.user, deviceId: session.deviceId, mode: session.mode, reason, durationMs, bytesToDevice, bytesFromDevice });
      events.publish('RemoteConsoleSessionClosed', { mode: session.mode, bytesToDevice, bytesFromDevice, durationSeconds: durationMs / 1000 });
      const by = endedBy.get(session.id) ?? { user: session.user, address };
      endedBy.delete(session.id);
      void audit?.record({
        by,
        action: 'remote.session.end',
        target: session.deviceId,
        detail: { mode: session.mode, sessionId: session.id, durationSeconds: durationMs / 1000, bytesToDevice, bytesFromDevice, reason },
      });
    };
    registry.open(session);
    events.publish('RemoteConsoleSessionOpened', { mode: session.mode });
    logger.info('remote console session started', { sessionId: session.id, user: session.user, deviceId: session.deviceId, mode: session.mode });
    const relay = startRelay({
      ws, viewerSocket: socket, stream: opened.stream, slabReads: opened.slabReads, leftover: opened.leftover, codec: opened.begun, idleMs: config.idleTimeoutSeconds * 1000,
      deviceClose: ticket.mode === 'kvm' ? 'deviceIdleKvm' : 'device', onEnd,
    });
  }

  const revocation = createRevocation({ auth, tickets, registry });
  // A backstop for what no event announces; revocations end sessions at once (revocation.ts).
  const userTimer = setInterval(() => {
    tickets.sweep();
    void revocation.checkAll().catch(() => undefined);
  }, config.userCheckMs);
  userTimer.unref();

  return {
    /** Ends or narrows what a user whose access was revoked holds. */
    revoked: revocation.revoked,
    create,
    connect,
    /** The sessions of every mode (IDE-R sessions are held here too: ider-service.ts). */
    registry,
    list: () => registry.list(),
    forDevice: (deviceId: string) => registry.forDevice(deviceId),
    /** Ends a session for an operator (`by`, recorded as who ended it). */
    end(id: string, by: RequestActor): void {
      const session = registry.get(id);
      if (!session) throw RedirectionErrors.sessionNotFound(id);
      endedBy.set(id, by);
      session.end('deleted', by);
    },
    /** Ends every session (shutdown). */
    stop(): void {
      clearInterval(userTimer);
      for (const session of registry.list()) session.end('shutdown');
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
