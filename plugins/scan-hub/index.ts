/**
 * The `scan-hub` plugin: `/scanHub`, a SignalR-compatible live channel (CONTRACT section 7) over
 * WebSockets, carrying scan, device status and power events from the bus to signed-in clients.
 * The protocol as this hub speaks it is described in this folder's README.
 */
import { WebSocketServer } from 'ws';
import { definePlugin } from '../../core/plugin-api.js';
import { HUB_CONFIG_SCHEMA } from './config.js';
import { ConnectionRegistry } from './connection-registry.js';
import { startFanOut } from './fan-out.js';
import { negotiateHandler } from './negotiate.js';
import { createUpgradeHandler } from './upgrade.js';

const HUB_PATH = '/scanHub';

export default definePlugin({
  name: 'scan-hub',
  version: '1.0.0',
  kernel: '1',
  dependencies: [],
  prefix: HUB_PATH,
  permissions: [],
  routes: [],
  configSchema: HUB_CONFIG_SCHEMA,
  register(ctx) {
    const { config, logger } = ctx;
    let closing: Promise<void> | undefined;
    const closeHub = () => (closing ??= registry.closeAll().finally(() => registry.dispose()));
    const registry = new ConnectionRegistry(config, ctx.auth, logger, (event) => ctx.events.publish('HubConnectionsChanged', event));
    const wss = new WebSocketServer({ noServer: true, maxPayload: config.maxMessageBytes, perMessageDeflate: false, clientTracking: false });
    const stopFanOut = startFanOut(ctx.events, config.progressMinIntervalMs, (event) => registry.broadcast(event));
    const stopRevocations = ctx.events.subscribe('AccessRevoked', (event) => registry.revoked(event));

    ctx.http.mount(HUB_PATH, negotiateHandler(registry, ctx.auth, HUB_PATH));
    // The header the @microsoft/signalr client sends with negotiate.
    ctx.http.cors({ allowHeaders: ['X-SignalR-User-Agent'] });
    const upgrade = createUpgradeHandler({ registry, auth: ctx.auth, wss, logger });
    // A hub address configured with a trailing slash makes the SignalR client connect to `/scanHub/`.
    ctx.http.onUpgrade(HUB_PATH, upgrade);
    ctx.http.onUpgrade(`${HUB_PATH}/`, upgrade);
    // Clients get their Close (allowReconnect) before the listener drains, which would wait for them.
    ctx.onStopping(async () => {
      stopFanOut();
      stopRevocations();
      await closeHub();
      wss.close();
    });
  },
});
