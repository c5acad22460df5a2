/**
 * Which instance of a cluster holds each device's tunnel (collection `cira_tunnels`), so that an
 * operation on a CIRA device arriving anywhere is forwarded to the instance that can reach it, the
 * tunnels of every instance are listed, and the `cira` connection of an instance that went down is
 * taken off its devices (they come back through whichever instance they dial next). A device that
 * dialled two instances at once keeps one tunnel, as on one gateway the newer of two tunnels of a
 * device replaces the older: whichever instance learns that another holds a newer tunnel of the
 * device drops its own, and one that holds the newer one records it again. An instance only taken
 * for down (its heartbeat late) sees its records cleared while it still holds the tunnels, and
 * records them again. On a one-box site nothing of this runs.
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
  /** Whether another instance that is up holds a tunnel of the device. */
  heldElsewhere(deviceId: string): boolean;
}

/** Of two tunnels of one device, whether `a` is the newer connection (the one that stays); the instance id breaks a tie. */
const newer = (a: DirectoryEntry, b: DirectoryEntry): boolean => {
  const [at, bt] = [Date.parse(a.connection.connectedAt), Date.parse(b.connection.connectedAt)];
  return at !== bt ? at > bt : a.instance > b.instance;
};

export async function openTunnelDirectory(ctx: PluginContext, store: KeyValueStore, cira: CiraService, presence: DevicePresence): Promise<TunnelDirectory> {
  const { cluster } = ctx;
  const self = cluster.self;
  const entries = new Map<string, DirectoryEntry>();
  for await (const [deviceId, entry] of store.entries<DirectoryEntry>()) entries.set(deviceId, entry);
  const warn = (what: string) => (err: Error) => ctx.logger.warn(what, { error: err.message });
  const mine = (deviceId: string): DirectoryEntry | undefined => {
    const connection = cira.connection(deviceId);
    return connection?.verified ? { instance: self.id, instanceName: self.name, connection: { ...connection } } : undefined;
  };
  /**
   * Records this instance's tunnel of the device, under the device's directory lease (an instance
   * clearing a dead one's tunnels never removes it), unless another instance's newer tunnel is
   * recorded: then this one is the device's stale one, and goes.
   */
  const record = (deviceId: string, entry: DirectoryEntry) =>
    cluster.exclusive(`cira-tunnel:${deviceId}`, async () => {
      const current = await store.get<DirectoryEntry>(deviceId);
      if (current && current.instance !== self.id && cluster.isUp(current.instance) && newer(current, entry)) return settle(deviceId, current);
      entries.set(deviceId, entry);
      await store.put(deviceId, entry);
    });
  /** Another instance holds a tunnel of a device this one holds too: the older goes, the newer is recorded. */
  function settle(deviceId: string, theirs: DirectoryEntry): void {
    entries.set(deviceId, theirs);
    const ours = mine(deviceId);
    if (!ours || !cluster.isUp(theirs.instance)) return;
    if (newer(theirs, ours)) {
      ctx.logger.info('CIRA tunnel dropped: the device dialled another gateway instance since', { deviceId, instance: theirs.instanceName });
      cira.drop(deviceId);
    } else void record(deviceId, ours).catch(warn('could not record a CIRA tunnel for the cluster'));
  }
  /**
   * The device's record is gone while this instance holds its verified tunnel: another instance
   * took this one for down (a heartbeat late while it was busy, stopped or paused) and cleared its
   * tunnels. The tunnel is alive: it is recorded again and the device reachable through it again,
   * without waiting for the device to redial.
   */
  const restore = (deviceId: string) =>
    cluster.exclusive(`cira-tunnel:${deviceId}`, async () => {
      const ours = mine(deviceId);
      if (!ours || (await store.get<DirectoryEntry>(deviceId))) return;
      entries.set(deviceId, ours);
      await store.put(deviceId, ours);
      // The clearing instance said the device unreachable just before: read that first, then undo it.
      await cluster.catchUp();
      await presence.report({ deviceId }, 'cira', true);
      ctx.logger.info('CIRA tunnel recorded again: another gateway instance took this one for down while it held the tunnel', { deviceId });
    });
  store.onRemoteChange<DirectoryEntry>((deviceId, entry) => {
    if (!entry) {
      entries.delete(deviceId);
      if (mine(deviceId)) void restore(deviceId).catch(warn('could not record a CIRA tunnel for the cluster again'));
      return;
    }
    if (entry.instance === self.id) return void entries.set(deviceId, entry);
    settle(deviceId, entry);
  });

  cira.onTunnel((event) => {
    const { deviceId } = event.connection;
    if (event.type === 'up') {
      const entry: DirectoryEntry = { instance: self.id, instanceName: self.name, connection: { ...event.connection } };
      entries.set(deviceId, entry);
      void record(deviceId, entry).catch(warn('could not record a CIRA tunnel for the cluster'));
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
        // Back up before its turn came (it was only late): its tunnels are alive.
        if (cluster.isUp(instance)) return;
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
    heldElsewhere(deviceId) {
      const entry = entries.get(deviceId);
      return entry !== undefined && entry.instance !== self.id && cluster.isUp(entry.instance);
    },
    remote: () =>
      [...entries.values()]
        .filter((e) => e.instance !== self.id && cluster.isUp(e.instance))
        .map((e) => ({ ...e.connection, instance: e.instanceName })),
  };
}
