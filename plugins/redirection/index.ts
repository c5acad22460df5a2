/**
 * redirection: the remote console. KVM (the device's RFB, for noVNC) and serial-over-LAN sessions
 * relayed over a WebSocket with single-use tickets, the device signed in with the stored credential
 * by the gateway, features and user consent, on the LAN or through a CIRA tunnel. See README.md.
 */
import { WebSocketServer } from 'ws';
import { definePlugin } from '../../core/plugin-api.js';
import { REDIRECTION_CONFIG_SCHEMA } from './config.js';
import { createRedirectionReads } from './device-state.js';
import { registerRedirectionRoutes } from './routes.js';
import { createSessionService, PERMISSION, RELAY_PATH } from './session-service.js';
import { createRelayUpgrade } from './upgrade.js';

/** Largest viewer message (RFB client messages and typed text are small). */
const MAX_VIEWER_MESSAGE = 256 * 1024;

export default definePlugin({
  name: 'redirection',
  version: '1.0.0',
  kernel: '1',
  dependencies: ['devices'],
  optionalDependencies: ['audit'],
  prefix: '/api/redirection',
  permissions: [{ name: PERMISSION, description: 'Open remote console sessions (KVM, serial-over-LAN), change redirection features and consent' }],
  configSchema: REDIRECTION_CONFIG_SCHEMA,
  register(ctx) {
    const gate = ctx.use('deviceGate');
    const reads = createRedirectionReads(gate, ctx.config.device);
    const sessions = createSessionService({
      devices: ctx.use('devices'),
      reads,
      openSession: (device, request) => gate.openSession(device, request, ctx.config.device),
      auth: ctx.auth,
      logger: ctx.logger,
      config: ctx.config,
      events: ctx.events,
      audit: ctx.useOptional('audit'),
    });
    registerRedirectionRoutes(ctx, reads, sessions);
    const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_VIEWER_MESSAGE, perMessageDeflate: false, clientTracking: false });
    ctx.http.onUpgrade(RELAY_PATH, createRelayUpgrade(sessions, wss, ctx.config.origins, ctx.logger));
    ctx.onStopping(() => sessions.stop());
  },
});
