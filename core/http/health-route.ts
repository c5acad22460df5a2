import type { PluginContext } from '../plugin-api.js';
import type { StoreStatus } from '../store/level-store.js';
import type { ReadinessRegistry } from '../health/readiness.js';
import { HEALTH_SCHEMA, NOT_READY_SCHEMA, READY_SCHEMA, type Health, type Readiness } from '../health/health-schemas.js';

export interface HealthParts {
  version: string;
  plugins: () => string[];
  store: () => StoreStatus;
  readiness: ReadinessRegistry;
}


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
        schema: HEALTH_SCHEMA,
      },
    },
    handler: (): Health => {
      const store = parts.store();
      return { status: 'ok', version: parts.version, plugins: parts.plugins(), ...(store.state === 'ok' ? {} : { store }) };
    },
  });
  ctx.http.route({
    method: 'get',
    path: '/health/ready',
    summary: 'Readiness: the store, the worker pool and every plugin are up',
    tags: ['health'],
    permission: 'public',
    responses: {
      200: { description: 'Ready', schema: READY_SCHEMA },
      503: {
        description: 'Not ready: the checks that fail carry a reason',
        contentType: 'application/json',
        schema: NOT_READY_SCHEMA,
      },
    },
    handler: async (_request, reply): Promise<Readiness> => {
      const checks = await parts.readiness.report();
      const ready = checks.every((c) => c.ready);
      reply.header('Cache-Control', 'no-store');
      if (!ready) reply.status(503).type('application/json');
      return ready ? { status: 'ready', checks } : { status: 'not ready', checks };
    },
  });
}
