/** `GET /api/cluster` (`users:manage`): every instance of the cluster with its state. */
import type { PluginContext } from '../plugin-api.js';
import type { PluginCluster } from './cluster-api.js';
import { CLUSTER_INSTANCE_SCHEMA, CLUSTER_SCHEMA, type Cluster, type ClusterInstance } from './cluster-schemas.js';
import { USERS_MANAGE } from '../auth/core-permissions.js';

export function registerClusterRoute(ctx: PluginContext, cluster: PluginCluster): void {
  ctx.openapi.addTag('cluster', 'Several gateway instances on one PostgreSQL store');
  ctx.openapi.addSchema('ClusterInstance', CLUSTER_INSTANCE_SCHEMA);
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
        schema: CLUSTER_SCHEMA,
      },
    },
    async handler(): Promise<Cluster> {
      if (!cluster.enabled) {
        const now = new Date().toISOString();
        return { self: cluster.self.id, instances: [{ id: cluster.self.id, name: cluster.self.name, url: ctx.site.baseUrl() || null, startedAt: STARTED_AT, lastSeenAt: now, state: 'up', ciraTunnels: 0 } satisfies ClusterInstance] };
      }
      return { self: cluster.self.id, instances: await cluster.instances() };
    },
  });
}

const STARTED_AT = new Date().toISOString();
