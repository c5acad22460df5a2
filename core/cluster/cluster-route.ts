/** `GET /api/cluster` (`users:manage`): every instance of the cluster with its state. */
import type { PluginContext } from '../plugin-api.js';
import type { PluginCluster } from './cluster-api.js';
import { USERS_MANAGE } from '../auth/core-permissions.js';

const INSTANCE_SCHEMA = {
  type: 'object',
  required: ['name', 'url', 'startedAt', 'lastSeenAt', 'state', 'ciraTunnels'],
  properties: {
    id: { type: 'string', description: 'One per process start' },
    name: { type: 'string' },
    url: { type: ['string', 'null'], description: 'Where the other instances reach it' },
    startedAt: { type: 'string', format: 'date-time' },
    lastSeenAt: { type: 'string', format: 'date-time', description: 'Its last heartbeat' },
    state: { enum: ['up', 'down'] },
    ciraTunnels: { type: 'integer' },
  },
} as const;

export function registerClusterRoute(ctx: PluginContext, cluster: PluginCluster): void {
  ctx.openapi.addTag('cluster', 'Several gateway instances on one PostgreSQL store');
  ctx.openapi.addSchema('ClusterInstance', INSTANCE_SCHEMA);
  ctx.http.route({
    method: 'get',
    path: '/cluster',
    summary: 'The instances of the cluster',
    description: 'Every gateway instance on this store seen within the last day, up or down (down: no heartbeat for cluster.downAfterSeconds, or stopped). A one-box site (LevelDB) lists itself alone.',
    tags: ['cluster'],
    permission: USERS_MANAGE,
    responses: {
      200: {
        description: 'The instances',
        schema: { type: 'object', required: ['instances'], properties: { self: { type: 'string' }, instances: { type: 'array', items: { $ref: '#/components/schemas/ClusterInstance' } } } },
      },
    },
    async handler() {
      if (!cluster.enabled) {
        const now = new Date().toISOString();
        return { self: cluster.self.id, instances: [{ id: cluster.self.id, name: cluster.self.name, url: ctx.site.baseUrl() || null, startedAt: STARTED_AT, lastSeenAt: now, state: 'up', ciraTunnels: 0 }] };
      }
      return { self: cluster.self.id, instances: await cluster.instances() };
    },
  });
}

const STARTED_AT = new Date().toISOString();
