/**
 * remote-monitor: online monitoring of every known device (a spread-out schedule of presence
 * probes in the worker pool; changes stored with their time, published as DeviceStatusChanged and
 * provided as the `presence` service), and remote reads of one device's hardware and event log.
 * See README.md.
 */
import { REMOTE_MONITOR_COLLECTIONS } from './collections.js';
import { definePlugin } from '../../core/plugin-api.js';
import './api.js';
import { REMOTE_MONITOR_CONFIG_SCHEMA, type RemoteMonitorConfig } from './config.js';
import { registerDeviceRoutes } from './device-routes.js';
import { registerMonitorRoutes } from './monitor-routes.js';
import { createPresenceService } from './presence-service.js';
import { openPresenceStates } from './presence-states.js';
import { createStatusFeed } from './status-feed.js';
import { createSweepScheduler } from './sweep-scheduler.js';
import { clusterShare } from './cluster-share.js';
import { trackedStates } from './tracked-states.js';

export default definePlugin<RemoteMonitorConfig>({
  name: 'remote-monitor',
  collections: REMOTE_MONITOR_COLLECTIONS,
  version: '1.0.0',
  kernel: '1',
  dependencies: ['devices'],
  prefix: '/api/monitor',
  permissions: [{ name: 'monitor:read', description: 'Read online state, hardware and event logs' }],
  routes: [{ path: '/monitor', name: 'monitor', meta: { title: 'Monitoring', icon: 'monitor-heart', permission: 'monitor:read', order: 50 } }],
  configSchema: REMOTE_MONITOR_CONFIG_SCHEMA,
  env: { AMTGW_MONITOR_INTERVAL_S: { option: 'intervalSeconds', type: 'number' } },
  async register(ctx) {
    const { config } = ctx;
    const devices = ctx.use('devices');
    const stored = await openPresenceStates(ctx.store.namespace('presence'), config.missedProbesOffline, ctx.logger);
    const gate = ctx.use('deviceGate');
    const allows = (address: string) => gate.allows(address);
    let ensureTracking = () => {};
    const states = trackedStates(stored, () => ensureTracking());
    const feed = createStatusFeed(ctx.events, devices, ctx.use('devicePresence'), states, ctx.logger);
    // In a cluster each device is probed by one instance (its flips reach the others through the store and the bus).
    const probesHere = ctx.cluster.enabled ? clusterShare(ctx.cluster) : undefined;
    const scheduler = createSweepScheduler({
      sweep: (input, options) => gate.probe('presence-sweep', input, options), createCancelToken: () => ctx.pool.createCancelToken(), devices, states: stored, ports: gate.settings.ports, config, logger: ctx.logger, allows, onObserved: feed.onObserved,
      ...(probesHere ? { probesHere } : {}),
    });
    ensureTracking = scheduler.ensureTracking;
    ctx.provide('presence', createPresenceService(devices, states, gate.settings.ports));

    ctx.openapi.addTag('monitor', 'Online monitoring and remote reads of hardware and event logs');
    registerMonitorRoutes(ctx, devices, states, scheduler, allows);
    registerDeviceRoutes(ctx, devices, gate, config.device);

    const stopListening = feed.listen(scheduler, config.intervalSeconds * 1000);
    ctx.onReady(() => {
      scheduler.start();
      ctx.logger.info('online monitor started', { intervalSeconds: config.intervalSeconds, devices: devices.count() });
    });
    ctx.onClose(async () => {
      stopListening();
      await scheduler.stop();
      await stored.flush();
    });
  },
});
