/**
 * How many IDE-R sessions serve each image now, so that an image in use is not deleted. In a
 * cluster every instance counts its own and writes the count to the store (`pin:<image>:<instance>`)
 * whenever it changes, so that a delete through any instance sees every instance's sessions; the
 * counts of an instance that is down no longer hold (and are deleted at the next start). A pin and a
 * delete of one image take the image's cluster-wide turn, so neither runs inside the other.
 */
import type { KeyValueStore, PluginCluster } from '../../core/plugin-api.js';

const PREFIX = 'pin:';

interface PinRecord {
  image: string;
  instance: string;
  sessions: number;
}

export interface ImagePins {
  /** Sessions of every instance that is up serving `id` (this one's included). */
  count(id: string): number;
  /** One more session serves `id` here. */
  add(id: string): Promise<void>;
  /** One session fewer serves `id` here. */
  remove(id: string): Promise<void>;
  /** Runs `work` in the image's turn: no pin or delete of it runs meanwhile, on any instance. */
  exclusive<T>(id: string, work: () => Promise<T>): Promise<T>;
}

export async function openImagePins(store: KeyValueStore, cluster: Pick<PluginCluster, 'enabled' | 'self' | 'isUp' | 'exclusive'>): Promise<ImagePins> {
  const local = new Map<string, number>();
  const remote = new Map<string, PinRecord>();
  const keyOf = (id: string) => `${PREFIX}${id}:${cluster.self.id}`;
  if (cluster.enabled) {
    const stale: string[] = [];
    for await (const page of store.pages<PinRecord>({ prefix: PREFIX })) {
      for (const [key, pin] of page) {
        if (cluster.isUp(pin.instance) && pin.instance !== cluster.self.id) remote.set(key, pin);
        else stale.push(key);
      }
    }
    if (stale.length > 0) await store.batch(stale.map((key) => ({ type: 'del' as const, key })));
    store.onRemoteChange<PinRecord>((key, pin) => {
      if (!key.startsWith(PREFIX)) return;
      if (pin && pin.instance !== cluster.self.id) remote.set(key, pin);
      else remote.delete(key);
    });
  }
  const write = async (id: string, sessions: number) => {
    if (!cluster.enabled) return;
    if (sessions > 0) await store.put(keyOf(id), { image: id, instance: cluster.self.id, sessions } satisfies PinRecord);
    else await store.del(keyOf(id));
  };
  const change = async (id: string, by: number) => {
    const sessions = Math.max(0, (local.get(id) ?? 0) + by);
    if (sessions > 0) local.set(id, sessions);
    else local.delete(id);
    await write(id, sessions);
  };
  return {
    count(id) {
      let total = local.get(id) ?? 0;
      for (const pin of remote.values()) if (pin.image === id && cluster.isUp(pin.instance)) total += pin.sessions;
      return total;
    },
    add: (id) => cluster.exclusive(`image:${id}`, () => change(id, 1)),
    remove: (id) => change(id, -1),
    exclusive: (id, work) => cluster.exclusive(`image:${id}`, work),
  };
}
