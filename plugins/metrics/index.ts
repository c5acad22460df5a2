/**
 * metrics: Prometheus metrics (prom-client) at `/metrics`: process and Node.js metrics and the
 * gateway's own (`amtgw_*`), fed by the events the kernel and the plugins publish and, for the
 * device gauges, the `devices` service at scrape time. See README.md.
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { definePlugin, type EventBus } from '../../core/plugin-api.js';
import { PACKAGE_VERSION } from '../../core/assets/package-root.js';
import './api.js';
import { METRICS_CONFIG_SCHEMA } from './config.js';
import { createExposition, expositionListener, METRICS_READ } from './exposition.js';
import { registerFleetMetrics } from './fleet-metrics.js';
import { registerOperationMetrics } from './operation-metrics.js';
import { registerTrafficMetrics } from './traffic-metrics.js';

export default definePlugin({
  name: 'metrics',
  version: '1.0.0',
  kernel: '1',
  // Only for the `devices` service the device gauges read; every other figure comes from the bus.
  optionalDependencies: ['rest-api'],
  permissions: [{ name: METRICS_READ, description: 'Scrape the Prometheus metrics' }],
  configSchema: METRICS_CONFIG_SCHEMA,
  async register(ctx) {
    const { config } = ctx;
    const registry = new Registry();
    if (config.defaultMetrics) collectDefaultMetrics({ register: registry });
    new Gauge({ name: 'amtgw_build_info', help: 'The running amt-gateway version (always 1)', labelNames: ['version'], registers: [registry] }).labels(PACKAGE_VERSION).set(1);
    // In a cluster each instance counts what happened on it: events shared by the others (a scan's, a revocation) are theirs to count.
    const local: EventBus = {
      ...ctx.events,
      subscribe: (event, listener) => ctx.events.subscribe(event, (payload) => (ctx.cluster.isRemote(payload) ? undefined : listener(payload))),
    };
    const unsubscribe = [
      ...registerFleetMetrics(registry, local, () => ctx.useOptional('devices')),
      ...registerOperationMetrics(registry, local),
      ...registerTrafficMetrics(registry, local),
    ];
    ctx.onClose(() => unsubscribe.forEach((off) => off()));

    const requireAuth = config.listener?.requireAuth ?? true;
    const answer = createExposition({ registry, auth: ctx.auth, token: config.token, requireAuth });
    if (config.listener) {
      const listener = await ctx.listen(expositionListener(config.path, answer), { host: config.listener.host, port: config.listener.port });
      ctx.logger.info('metrics listener started', { url: listener.url + config.path });
      return;
    }
    ctx.http.mount(config.path, async (req, reply) => {
      if (req.path !== config.path || (req.method !== 'GET' && req.method !== 'HEAD')) return undefined;
      const a = await answer(req.header('Authorization') || undefined);
      reply.status(a.status);
      if (a.status !== 200) for (const [name, value] of Object.entries(a.headers)) reply.header(name, value);
      reply.type(a.status === 200 ? a.contentType : 'text/plain; charset=utf-8');
      return Buffer.from(a.body);
    });
  },
});
