import type { PluginContext } from '../plugin-api.js';
import type { StoreStatus } from '../store/level-store.js';
import type { ReadinessRegistry } from '../health/readiness.js';

export interface HealthParts {
  version: string;
  plugins: () => string[];
  store: () => StoreStatus;
  readiness: ReadinessRegistry;
  /** This instance's name (`cluster.instanceName`). */
  instance: string;
}

const CHECKS_SCHEMA = {
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'ready'],
    properties: { name: { type: 'string' }, ready: { type: 'boolean' }, reason: { type: 'string' } },
  },
} as const;

/**
 * `GET /api/health`: no token; 200 once serving (liveness: a read-only store does not make a
 * restart useful, so it stays 200 and says so in `store`). `GET /api/health/ready`: no token;
 * 200 when every readiness check passes, else 503 naming the checks that do not.
 */
export function registerHealthRoute(ctx: PluginContext, parts: HealthParts): void {
  ctx.http.route({
    method: 'get',
    path: '/health',
    summary: 'Liveness: the gateway is serving',
    tags: ['health'],
    permission: 'public',
    responses: {
      200: {
        description: 'Serving; `store` appears only when the store is read-only or damaged',
        schema: {
          type: 'object',
          required: ['status', 'version', 'plugins'],
          properties: {
            status: { const: 'ok' },
            version: { type: 'string' },
            plugins: { type: 'array', items: { type: 'string' } },
            instance: { type: 'string', description: "This instance's name (cluster.instanceName)" },
            store: { type: 'object', properties: { state: { type: 'string' }, reason: { type: 'string' } } },
          },
        },
      },
    },
    handler: () => {
      const store = parts.store();
      return { status: 'ok', version: parts.version, plugins: parts.plugins(), instance: parts.instance, ...(store.state === 'ok' ? {} : { store }) };
    },
  });
  ctx.http.route({
    method: 'get',
    path: '/health/ready',
    summary: 'Readiness: the store, the worker pool and every plugin are up',
    tags: ['health'],
    permission: 'public',
    responses: {
      200: { description: 'Ready', schema: { type: 'object', required: ['status', 'checks'], properties: { status: { const: 'ready' }, checks: CHECKS_SCHEMA } } },
      503: {
        description: 'Not ready: the checks that fail carry a reason',
        contentType: 'application/json',
        schema: { type: 'object', required: ['status', 'checks'], properties: { status: { const: 'not ready' }, checks: CHECKS_SCHEMA } },
      },
    },
    handler: async (_request, reply) => {
      const checks = await parts.readiness.report();
      const ready = checks.every((c) => c.ready);
      reply.header('Cache-Control', 'no-store');
      if (!ready) reply.status(503).type('application/json');
      return { status: ready ? 'ready' : 'not ready', checks };
    },
  });
}
