/**
 * The remote console in a cluster. A session lives on the instance that opened it (the one holding
 * the device's CIRA tunnel, or the one a LAN device's request reached); each instance records the
 * sessions it serves in the store (`sessions`, by session id, with the instance), so that every
 * instance lists them all, ends one wherever it runs (DELETE is forwarded to its instance), refuses
 * a second session of a mode a device has open elsewhere, and lets a boot from IDE-R through when
 * another instance serves the medium. A viewer's WebSocket reaches the instance that issued its
 * ticket (its URL names the instance; the kernel passes the upgrade there). The sessions of an
 * instance that went down are gone with it. On a one-box site nothing of this runs.
 */
import type { IncomingMessage } from 'node:http';
import type { KeyValueStore, PluginContext } from '../../core/plugin-api.js';
import type { ImageKind } from 'amt-gateway/images';
import type { LiveSession, RegistryMode, SessionRegistry } from './sessions.js';
import { RELAY_PATH } from './session-service.js';

/** A session as the directory keeps it: what lists show, and its instance. */
interface Entry {
  instance: string;
  instanceName: string;
  session: { id: string; mode: RegistryMode; deviceId: string; user: string; startedAt: string; cd: string | null; floppy: string | null };
}

/** A session another instance serves, as lists show it. */
export type RemoteSession = Entry['session'] & { instance: string };

export interface SessionDirectory {
  /** The sessions of the other instances that are up. */
  remote(): RemoteSession[];
  /** Whether another instance has the device's `kind` served by an IDE-R session. */
  servingElsewhere(deviceId: string, kind: ImageKind): boolean;
  /** The query parameter a ticket's URL carries to name this instance. */
  readonly ticketParameter: string;
}

const INSTANCE_PARAMETER = 'instance';

export async function openSessionDirectory(ctx: PluginContext, store: KeyValueStore, registry: SessionRegistry): Promise<SessionDirectory> {
  const { cluster } = ctx;
  const self = cluster.self;
  const entries = new Map<string, Entry>();
  for await (const page of store.pages<Entry>()) for (const [id, entry] of page) entries.set(id, entry);
  store.onRemoteChange<Entry>((id, entry) => (entry ? entries.set(id, entry) : entries.delete(id)));
  const warn = (what: string) => (err: Error) => ctx.logger.warn(what, { error: err.message });
  const elsewhere = () => [...entries.values()].filter((e) => e.instance !== self.id && cluster.isUp(e.instance));

  registry.observe((change, session: LiveSession) => {
    if (change === 'open') {
      const { id, mode, deviceId, user, startedAt } = session;
      const entry: Entry = { instance: self.id, instanceName: self.name, session: { id, mode, deviceId, user, startedAt, cd: session.media?.cd ?? null, floppy: session.media?.floppy ?? null } };
      entries.set(id, entry);
      void store.put(id, entry).catch(warn('could not record a remote console session for the cluster'));
    } else if (entries.get(session.id)?.instance === self.id) {
      entries.delete(session.id);
      void store.del(session.id).catch(warn('could not remove a remote console session from the cluster record'));
    }
  });
  registry.consult((deviceId, mode) => elsewhere().some((e) => e.session.deviceId === deviceId && e.session.mode === mode));

  /** What an instance that went down (or stopped) served is gone. */
  const forgetInstance = async (instance: string) => {
    const gone = [...entries].filter(([, e]) => e.instance === instance).map(([id]) => id);
    for (const id of gone) entries.delete(id);
    if (gone.length > 0) await store.batch(gone.map((key) => ({ type: 'del' as const, key })));
  };
  cluster.onInstanceDown((instance) => void forgetInstance(instance).catch(warn('could not clear the remote console sessions of a down instance')));
  for (const instance of new Set([...entries.values()].map((e) => e.instance))) if (!cluster.isUp(instance)) await forgetInstance(instance);

  // An operator's DELETE of a session another instance serves runs there.
  cluster.routeRequests((req) => {
    if (req.method !== 'DELETE' || !req.path.startsWith(`${ctx.http.prefix}/sessions/`)) return null;
    const id = (req.params as Record<string, string | undefined>)['id'];
    if (!id || registry.get(id)) return null;
    const holder = entries.get(id)?.instance;
    return holder && holder !== self.id ? holder : null;
  });
  // A viewer's WebSocket runs where its ticket was issued.
  cluster.routeUpgrades(RELAY_PATH, (req: IncomingMessage) => new URL(req.url ?? '/', 'http://relay.invalid').searchParams.get(INSTANCE_PARAMETER));

  return {
    remote: () => elsewhere().map((e) => ({ ...e.session, instance: e.instanceName })),
    servingElsewhere: (deviceId, kind) => elsewhere().some((e) => e.session.deviceId === deviceId && e.session.mode === 'ider' && e.session[kind] !== null),
    ticketParameter: `${INSTANCE_PARAMETER}=${encodeURIComponent(self.id)}`,
  };
}
