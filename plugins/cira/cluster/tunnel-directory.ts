/**
 * Which instance of a cluster holds each device's tunnel (collection `cira_tunnels`), so that an
 * operation on a CIRA device arriving anywhere is forwarded to the instance that can reach it, the
 * tunnels of every instance are listed, and the `cira` connection of an instance that went down is
 * taken off its devices (they come back through whichever instance they dial next). On a one-box
 * site nothing of this runs.
 */
import type { KeyValueStore, PluginContext } from '../../../core/plugin-api.js';
import type { DevicePresence } from 'amt-gateway/devices';
import type { CiraConnection, CiraService } from '../api.js';

/** A tunnel as the directory keeps it: the connection when it came up, and its instance. */
export interface DirectoryEntry {
  instance: string;
  instanceName: string;
  connection: CiraConnection;
}

export interface TunnelDirectory {
  /** The tunnels held by the other instances that are up, each with the name of its instance. */
  remote(): Array<CiraConnection & { instance: string }>;
}

export async function openTunnelDirectory(ctx: PluginContext, store: KeyValueStore, cira: CiraService, presence: DevicePresence): Promise<TunnelDirectory> {
  const { cluster } = ctx;
  const self = cluster.self;
  const entries = new Map<string, DirectoryEntry>();
  for await (const [deviceId, entry] of store.entries<DirectoryEntry>()) entries.set(deviceId, entry);
  store.onRemoteChange<DirectoryEntry>((deviceId, entry) => (entry ? entries.set(deviceId, entry) : entries.delete(deviceId)));
  const warn = (what: string) => (err: Error) => ctx.logger.warn(what, { error: err.message });

  cira.onTunnel((event) => {
    const { deviceId } = event.connection;
    if (event.type === 'up') {
      const entry: DirectoryEntry = { instance: self.id, instanceName: self.name, connection: { ...event.connection } };
      entries.set(deviceId, entry);
      // Under the device's directory lease: an instance clearing a dead one's tunnels never removes this newer one.
      void cluster.exclusive(`cira-tunnel:${deviceId}`, () => store.put(deviceId, entry)).catch(warn('could not record a CIRA tunnel for the cluster'));
    } else if (event.type === 'down' && !cira.connection(deviceId) && entries.get(deviceId)?.instance === self.id) {
      entries.delete(deviceId);
      void store.del(deviceId).catch(warn('could not remove a CIRA tunnel from the cluster record'));
    }
  });

  /** The tunnels of an instance that is down are gone: their devices lose their `cira` connection. */
  const forgetInstance = async (instance: string) => {
    const gone = [...entries].filter(([, e]) => e.instance === instance).map(([deviceId]) => deviceId);
    let removed = 0;
    for (const deviceId of gone) {
      // The device may have dialed another instance already: only the dead instance's record goes.
      await cluster.exclusive(`cira-tunnel:${deviceId}`, async () => {
        const current = await store.get<DirectoryEntry>(deviceId);
        if (current && current.instance !== instance) return void entries.set(deviceId, current);
        entries.delete(deviceId);
        if (current) await store.del(deviceId);
        if (!cira.connection(deviceId)) await presence.report({ deviceId }, 'cira', false);
        removed++;
      });
    }
    if (removed) ctx.logger.info('CIRA tunnels of a gateway instance that went down are gone', { instance, tunnels: removed });
  };
  cluster.onInstanceDown((instance) => void forgetInstance(instance).catch(warn('could not clear the tunnels of a down instance')));
  // What instances that died before this one started left behind.
  for (const instance of new Set([...entries.values()].map((e) => e.instance))) if (!cluster.isUp(instance)) await forgetInstance(instance);

  // An operation on a device whose tunnel another instance holds runs there.
  cluster.routeRequests((req) => {
    const deviceId = req.params['deviceId'];
    if (!deviceId || cira.connection(deviceId)) return null;
    const holder = entries.get(deviceId)?.instance;
    return holder && holder !== self.id && cluster.isUp(holder) ? holder : null;
  });
  cluster.reportTunnels(() => cira.connections().length);

  return {
    remote: () =>
      [...entries.values()]
        .filter((e) => e.instance !== self.id && cluster.isUp(e.instance))
        .map((e) => ({ ...e.connection, instance: e.instanceName })),
  };
}
