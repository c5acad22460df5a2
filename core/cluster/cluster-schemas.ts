/**
 * What `GET /api/cluster` answers: TypeBox schemas, their types derived; TypeBox only, so that the
 * console can import the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ComponentRef, DateTime, NullableString, StringEnum } from '../validation/schema-types.js';

/** One gateway instance of the cluster. */
export const CLUSTER_INSTANCE_SCHEMA = Type.Object({
  id: Type.String({ description: 'One per process start' }),
  name: Type.String({ description: 'cluster.instanceName' }),
  url: NullableString({ description: 'Where the other instances reach it (cluster.advertiseUrl); null before it listens' }),
  startedAt: DateTime(),
  lastSeenAt: DateTime({ description: 'Its last heartbeat' }),
  state: StringEnum(['up', 'down'], { description: 'down: no heartbeat for cluster.downAfterSeconds, or stopped' }),
  ciraTunnels: Type.Integer({ minimum: 0, description: 'CIRA tunnels it holds' }),
});

export type ClusterInstance = Static<typeof CLUSTER_INSTANCE_SCHEMA>;

/** What `GET /api/cluster` answers (each instance by reference to the `ClusterInstance` component). */
export const CLUSTER_SCHEMA = Type.Object({
  self: Type.String({ description: 'The id of the instance that answered' }),
  instances: Type.Array(ComponentRef<typeof CLUSTER_INSTANCE_SCHEMA>('ClusterInstance')),
});

export type Cluster = Static<typeof CLUSTER_SCHEMA>;
