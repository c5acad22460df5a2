/**
 * The cluster as the kernel starts it with the PostgreSQL store: this instance's heartbeat, leases,
 * counters, shared events and forwarding. Imported only then (single-instance.ts serves LevelDB).
 */
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../log/logger.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { GatewayStore } from '../store/gateway-store.js';
import type { PostgresStore } from '../store/postgres/pg-store.js';
import type { PluginCluster, RequestRouter } from './cluster-api.js';
import { registerInstance, type InstanceRegistry } from './instances.js';
import { createLeases } from './leases.js';
import { createEventRelay, EVENTS_CHANNEL } from './event-relay.js';
import { createForwarder } from './forwarder.js';
import { createUpgradeForwarder } from './upgrade-forwarder.js';
import { instanceName, type RunningCluster } from './single-instance.js';
import { createInternalVerifier } from './internal-key.js';
import { isUnreachable, unavailableError } from '../store/postgres/pg-errors.js';
import { createClusterThrottle } from './sign-in-attempts.js';
import { ownerAmong } from './owner.js';
import { CORE_PLUGIN } from '../core-plugin.js';
import { throttleLimits } from '../auth/login-throttle.js';

const defaults = { heartbeatSeconds: 3, downAfterSeconds: 15, forwardTimeoutMs: 30_000 };

export async function startCluster(options: { config: GatewayConfig; store: GatewayStore; internalKeys: Buffer[]; bus: EventBus; logger: Logger }): Promise<RunningCluster> {
  const { config, logger } = options;
  const name = instanceName(config);
  const store = options.store as PostgresStore;
  const settings = { ...defaults, ...config.cluster };
  const id = store.origin;
  const instances: InstanceRegistry = await registerInstance({ pool: store.pool, connection: store.pool.options, id, name, heartbeatSeconds: settings.heartbeatSeconds, downAfterSeconds: settings.downAfterSeconds, logger });
  const leases = createLeases(store.pool, id, settings.downAfterSeconds);
  const relay = createEventRelay(store.pool, id, options.bus, logger);
  store.listen(EVENTS_CHANNEL, (text) => relay.receive(text));
  const key = options.internalKeys[0]!;
  const routers: RequestRouter[] = [];
  const urls = new Map<string, string>();
  const refreshUrls = async () => {
    for (const instance of await instances.list()) if (instance.url) urls.set(instance.id, instance.url);
  };
  const verifier = createInternalVerifier(options.internalKeys);
  let reading: Promise<void> | undefined;
  /**
   * The URL of an up instance. One that began serving since the last read of the URLs (they are
   * read every heartbeat) is read now: its tunnels may be recorded, and requests routed to it,
   * before the next read.
   */
  const urlOf = async (other: string): Promise<string | undefined> => {
    if (instances.isUp(other) && !urls.has(other)) {
      reading ??= refreshUrls().catch(() => undefined).finally(() => (reading = undefined));
      await reading;
    }
    return instances.isUp(other) ? urls.get(other) : undefined;
  };
  const upgrades = createUpgradeForwarder({ self: id, key, verifier, urlOf, logger });
  const forwarder = createForwarder({
    self: id,
    key,
    verifier,
    routers,
    urlOf,
    timeoutMs: settings.forwardTimeoutMs,
    logger,
  });
  const cluster: PluginCluster = {
    enabled: true,
    self: { id, name },
    instances: () => instances.list(),
    isUp: (other) => instances.isUp(other),
    upInstances: () => instances.upIds(),
    ownerOf: (key) => ownerAmong(instances.upIds(), key, id),
    onInstanceDown: (listener) => instances.onDown(listener),
    exclusive: (lease, work, opts) => leases.exclusive(lease, work, opts?.waitMs),
    catchUp: () => store.catchUp(),
    async next(counter, atLeast = 1) {
      const result = await store.pool.query<{ value: string }>(
        'INSERT INTO gw_counters AS c (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = GREATEST(c.value + 1, $2) RETURNING value',
        [counter, atLeast],
      ).catch((err: unknown) => {
        throw isUnreachable(err) ? unavailableError(err) : err;
      });
      return Number(result.rows[0]!.value);
    },
    shareEvents: (names) => relay.share(names),
    isRemote: (payload) => relay.isRemote(payload),
    routeRequests(router) {
      routers.push(router);
    },
    routeUpgrades: (path, router) => upgrades.route(path, router),
    reportTunnels: (count) => instances.reportTunnels(count),
  };
  // A new instance's URL is read at each heartbeat.
  const urlTimer = setInterval(() => void refreshUrls().catch(() => undefined), settings.heartbeatSeconds * 1000);
  urlTimer.unref();
  logger.info('cluster instance registered', { instance: name, id });
  const throttles: Array<{ close(): void }> = [];
  return {
    cluster,
    forwarder,
    upgrades,
    shareDurably: (names) => relay.shareDurably(names, store.namespace(CORE_PLUGIN).namespace('cluster-events')),
    loginThrottle(scope, limits) {
      const throttle = createClusterThrottle(store.pool, { scope, limits: throttleLimits(limits), instance: id, downAfterSeconds: settings.downAfterSeconds, logger });
      throttles.push(throttle);
      return throttle;
    },
    async listening(url) {
      await instances.setUrl(config.cluster?.advertiseUrl ?? url);
      await refreshUrls();
    },
    async close() {
      clearInterval(urlTimer);
      for (const throttle of throttles) throttle.close();
      relay.close();
      await leases.close();
      await instances.close();
      await forwarder.close();
    },
  };
}
