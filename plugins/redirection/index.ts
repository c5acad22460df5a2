/**
 * redirection: the remote console. KVM (the device's RFB, for noVNC) and serial-over-LAN sessions
 * relayed over a WebSocket with single-use tickets, the device signed in with the stored credential
 * by the gateway, features and user consent, on the LAN or through a CIRA tunnel. See README.md.
 */
import { WebSocketServer } from 'ws';
import { definePlugin } from '../../core/plugin-api.js';
import type { Device, SessionRequest } from 'amt-gateway/devices';
import { REDIRECTION_CONFIG_SCHEMA } from './config.js';
import { createRedirectionReads } from './device-state.js';
import { registerRedirectionRoutes } from './routes.js';
import { createSessionService, PERMISSION, RELAY_PATH } from './session-service.js';
import './api.js';
import { registerIderBulkRoute } from './ider-bulk.js';
import { IderErrors } from './ider-errors.js';
import { createIderService } from './ider-service.js';
import { createRelayUpgrade } from './upgrade.js';
import { openSessionDirectory, type SessionDirectory } from './cluster-sessions.js';
import { routeCodesToOwner } from './consent-codes.js';
import { REDIRECTION_COLLECTIONS } from './collections.js';

/** Largest viewer message (RFB client messages and typed text are small). */
const MAX_VIEWER_MESSAGE = 256 * 1024;

export default definePlugin({
  name: 'redirection',
  version: '1.0.0',
  kernel: '1',
  dependencies: ['devices'],
  optionalDependencies: ['audit', 'images', 'power-mgmt'],
  prefix: '/api/redirection',
  permissions: [{ name: PERMISSION, description: 'Open remote console sessions (KVM, serial-over-LAN, IDE redirection), change redirection features and consent' }],
  configSchema: REDIRECTION_CONFIG_SCHEMA,
  collections: REDIRECTION_COLLECTIONS,
  async register(ctx) {
    const gate = ctx.use('deviceGate');
    let directory: SessionDirectory | undefined;
    const reads = createRedirectionReads(gate, ctx.config.device);
    // Sessions are opened and signed in by the device gate; the credential stays there.
    const openSession = <T>(device: Readonly<Device>, request: SessionRequest<T>) => gate.openSession(device, request, ctx.config.device);
    const sessions = createSessionService({
      devices: ctx.use('devices'),
      reads,
      openSession,
      auth: ctx.auth,
      logger: ctx.logger,
      config: ctx.config,
      events: ctx.events,
      audit: ctx.useOptional('audit'),
      ticketQuery: () => (directory ? `&${directory.ticketParameter}` : ''),
    });
    // In a cluster: every instance's sessions listed and ended anywhere, each viewer passed to its session's instance.
    if (ctx.cluster.enabled) {
      directory = await openSessionDirectory(ctx, ctx.store.namespace('sessions'), sessions.registry);
      routeCodesToOwner(ctx.cluster, ctx.use('devices'), ctx.http.prefix);
    }
    const ider = createIderService({
      devices: ctx.use('devices'),
      reads,
      openSession,
      images: ctx.useOptional('images'),
      registry: sessions.registry,
      config: ctx.config,
      logger: ctx.logger,
      events: ctx.events,
      audit: ctx.useOptional('audit'),
    });
    const power = ctx.useOptional('power');
    // A boot from IDE-R needs an open session serving that medium (CONTRACT 17).
    power?.addBootCheck((device, boot) => {
      const kind = boot === 'ider-cd' ? 'cd' : boot === 'ider-floppy' ? 'floppy' : null;
      if (kind && !ider.serving(device.id, kind) && !directory?.servingElsewhere(device.id, kind)) throw IderErrors.notServing(device.id, kind);
    });
    registerIderBulkRoute(ctx, ider, sessions, power, ctx.logger);
    registerRedirectionRoutes(ctx, reads, sessions, ider, directory);
    const stopRevocations = ctx.events.subscribe('AccessRevoked', (event) => sessions.revoked(event));
    if (ctx.config.maxTickets !== undefined) ctx.logger.warn('plugins.redirection.options.maxTickets is deprecated and ignored: tickets are bounded per user (maxTicketsPerUser)');
    const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_VIEWER_MESSAGE, perMessageDeflate: false, clientTracking: false });
    ctx.http.onUpgrade(RELAY_PATH, createRelayUpgrade(sessions, wss, { plugin: ctx.config.origins, public: ctx.site.publicOrigins }, ctx.logger, (req) => ctx.http.clientAddress(req)));
    ctx.onStopping(() => {
      stopRevocations();
      sessions.stop();
    });
  },
});
