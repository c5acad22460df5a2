/**
 * Which devices this instance of a cluster probes: each device's id hashed onto the instances that
 * are up, so that every device is probed by one instance and its flips are published (and notified
 * to SOAP subscribers) once. When an instance goes down, its share falls to the others at their
 * next heartbeat.
 */
import type { PluginCluster } from '../../core/plugin-api.js';

/** FNV-1a of the id: spreads UUIDs evenly, the same on every instance. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export function clusterShare(cluster: PluginCluster): (deviceId: string) => boolean {
  return (deviceId) => {
    const up = cluster.upInstances();
    return up.length <= 1 || up[hash(deviceId) % up.length] === cluster.self.id;
  };
}
