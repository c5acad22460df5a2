/**
 * Which devices this instance of a cluster probes: each device's owner (`ctx.cluster.ownerOf`, its
 * id hashed onto the instances that are up), so that every device is probed by one instance and its
 * flips are published (and notified to SOAP subscribers) once. When an instance goes down, its
 * share falls to the others at their next heartbeat.
 */
import type { PluginCluster } from '../../core/plugin-api.js';

export function clusterShare(cluster: PluginCluster): (deviceId: string) => boolean {
  return (deviceId) => cluster.ownerOf(deviceId) === cluster.self.id;
}
