import { randomUUID } from 'node:crypto';
import type { BatchOperation, KeyValueStore } from '../../../core/plugin-api.js';
import { createSerialQueue } from '../../../core/util/serial-queue.js';
import type { Device, DeviceRegistry } from '../api.js';
import { DeviceErrors } from '../errors.js';
import { createEncodedBlocks } from './encoded-blocks.js';
import { connectionsOf, withConnection } from '../presence/connections.js';
import { ipKey, matches, namedByUuid, sortByAddress } from './device-records.js';

/** What a scan learned about an address; merged into the device with the same identity. */
export type DeviceObservation = Omit<Device, 'id' | 'firstSeen' | 'lastSeen' | 'lastScanId' | 'online'> & {
  online?: boolean;
};

/** The registry with the writes the scanner and the device routes use. */
export interface ManagedDeviceRegistry extends DeviceRegistry {
  /** Creates or updates the device with this identity (UUID when known, else address). */
  record(observation: DeviceObservation, scanId: string | null): Promise<{ device: Device; created: boolean }>;
  delete(id: string): Promise<boolean>;
  findByAddress(ipAddress: string): Device | undefined;
  /** The device as UTF-8 JSON, encoded once per version of the device. */
  encoded(device: Device): Buffer;
  /** Devices `[start, end)` of the unfiltered address order as a JSON array, in parts. */
  encodedPage(start: number, end: number): Buffer[];
  /** The device with this UUID, or a new one at `ipAddress` with no connection (offline until a path reports it). */
  adopt(ref: { uuid: string; ipAddress: string }): Promise<{ device: Device; created: boolean }>;
  /** Calls `listener` after every write that flipped a device's `online` (the presence module announces it). */
  onOnlineChanged(listener: (device: Readonly<Device>) => void): void;
}

const LOAD_PAGE = 2000;
const LOAD_SPLIT = '8';

/**
 * Devices in the plugin's store, mirrored in memory (a device is a few hundred bytes, so 100,000
 * devices stay well under 100 MB) so that lists and filters never scan LevelDB.
 * Identity: UUID when known, else the address; a rescan updates, never duplicates.
 */
export async function openDeviceRegistry(store: KeyValueStore): Promise<ManagedDeviceRegistry> {
  const byId = new Map<string, Device>();
  /**
   * Identity lookups (UUID, address → id), built on first use: only scans, tunnels and address
   * look-ups need them, and building them with the load costs a tenth of a start with 100,000.
   */
  let lookups: { byUuid: Map<string, string>; byIp: Map<string, string> } | null = null;
  const addLookups = (device: Device, to: NonNullable<typeof lookups>) => {
    to.byIp.set(device.ipAddress, device.id);
    if (device.uuid) to.byUuid.set(device.uuid.toLowerCase(), device.id);
  };
  const identity = () => {
    if (!lookups) {
      const built = { byUuid: new Map<string, string>(), byIp: new Map<string, string>() };
      // byId holds devices in the order they were last indexed: the last one at an address wins, as it did.
      for (const device of byId.values()) addLookups(device, built);
      lookups = built;
    }
    return lookups;
  };
  /** Address order, rebuilt only when a device is added, removed or moves; updates replace in place. */
  let sorted: Device[] | null = null;
  const keyOf = (device: Device) => ipKey(device.ipAddress);
  /** Replaces `next` in the sorted list when it kept its address, else drops the list. */
  const replaceSorted = (previous: Device, next: Device) => {
    if (!sorted || previous.ipAddress !== next.ipAddress) {
      sorted = null;
      return;
    }
    const key = keyOf(next);
    let lo = 0;
    let hi = sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const midKey = keyOf(sorted[mid]!);
      if (midKey < key) lo = mid + 1;
      else if (midKey > key) hi = mid - 1;
      else if (sorted[mid]!.id === next.id) {
        sorted[mid] = next;
        return;
      } else break;
    }
    sorted = null;
  };
  const serial = createSerialQueue();
  // Stored devices are frozen (an update replaces the object), so their bytes can be kept.
  const encodedCache = new WeakMap<Device, Buffer>();
  /** The list as handed out: a frozen copy of `sorted`, made when asked for after a change. */
  let view: readonly Device[] | null = null;
  let onlineChanged: (device: Readonly<Device>) => void = () => {};
  /** After a write: tells the presence module when the write flipped `online` (a new device counts from offline). */
  const noteOnline = (previous: Device | undefined, next: Device) => {
    if ((previous?.online ?? false) !== next.online) onlineChanged(next);
  };

  const index = (device: Device, previous?: Device) => {
    // Frozen once per version of a device: whoever holds it cannot change what the registry serves.
    Object.freeze(device.openPorts);
    Object.freeze(device);
    view = null;
    byId.set(device.id, device);
    if (lookups) addLookups(device, lookups);
    if (previous) replaceSorted(previous, device);
    else sorted = null;
  };
  const unindex = (device: Device, replaced = false) => {
    view = null;
    byId.delete(device.id);
    if (lookups) {
      const { byIp, byUuid } = lookups;
      if (byIp.get(device.ipAddress) === device.id) byIp.delete(device.ipAddress);
      if (device.uuid && byUuid.get(device.uuid.toLowerCase()) === device.id) byUuid.delete(device.uuid.toLowerCase());
    }
    if (!replaced) sorted = null;
  };
  // Whole pages at a time (one await per page, not per device), the two halves of the key space read
  // by two LevelDB threads at once (ids are random UUIDs), indexed in key order as before, and the
  // address order built once from the loaded array: the first list does not sort. About a third off
  // loading 100,000 devices (BENCHMARKS.md, start-up).
  const loaded: Device[] = [];
  const indexPage = (page: Array<[string, Device]>) => {
    for (let i = 0; i < page.length; i++) {
      const device = page[i]![1];
      index(device);
      loaded.push(device);
    }
  };
  const upperHalf: Array<Array<[string, Device]>> = [];
  const reads = await Promise.allSettled([
    (async () => {
      for await (const page of store.pages<Device>({ lt: LOAD_SPLIT, size: LOAD_PAGE })) indexPage(page);
    })(),
    (async () => {
      for await (const page of store.pages<Device>({ gte: LOAD_SPLIT, size: LOAD_PAGE })) upperHalf.push(page);
    })(),
  ]);
  for (const read of reads) if (read.status === 'rejected') throw read.reason;
  for (const page of upperHalf) indexPage(page);
  sorted = sortByAddress(loaded, keyOf);

  const all = () => (sorted ??= sortByAddress([...byId.values()], keyOf));
  // Another instance of a cluster wrote a device: the mirror follows (its events reach this instance's bus from there).
  store.onRemoteChange<Device>((id, device) => {
    const current = byId.get(id);
    if (current) unindex(current, device !== undefined);
    if (device) index(device, current);
  });
  const blocks = createEncodedBlocks();

  return {
    onOnlineChanged(listener) {
      onlineChanged = listener;
    },
    encoded(device) {
      let bytes = encodedCache.get(device);
      if (bytes === undefined) {
        bytes = Buffer.from(JSON.stringify(device));
        encodedCache.set(device, bytes);
      }
      return bytes;
    },
    encodedPage: (start, end) => blocks.page(all(), start, end),
    get: (id) => byId.get(id),
    require: (id) => {
      const device = byId.get(id);
      if (!device) throw DeviceErrors.deviceNotFound(id);
      return device;
    },
    findByAddress: (ip) => {
      const id = identity().byIp.get(ip);
      return id ? byId.get(id) : undefined;
    },
    findByUuid: (uuid) => {
      const id = identity().byUuid.get(uuid.toLowerCase());
      return id ? byId.get(id) : undefined;
    },
    list: (filter = {}) => {
      if (filter.q === undefined && filter.online === undefined && filter.provisioningState === undefined) return (view ??= Object.freeze(all().slice()));
      return Object.freeze(all().filter((d) => matches(d, filter)));
    },
    count: () => byId.size,
    update: (id, patch) =>
      serial(async () => {
        const current = byId.get(id);
        if (!current) return undefined;
        const next: Device = { ...current, ...patch, id };
        if (patch.online !== undefined && patch.connections === undefined) next.connections = withConnection(connectionsOf(current), 'lan', patch.online);
        if (next.connections) next.online = next.connections.length > 0;
        await store.put(id, next);
        unindex(current, true);
        index(next, current);
        noteOnline(current, next);
        return next;
      }),
    delete: (id) =>
      serial(async () => {
        const current = byId.get(id);
        if (!current) return false;
        await store.del(id);
        unindex(current);
        return true;
      }),
    setConnection: (ref, kind, up) =>
      serial(async () => {
        const existing = 'deviceId' in ref ? byId.get(ref.deviceId) : byId.get(identity().byUuid.get(ref.uuid.toLowerCase()) ?? '');
        if (!existing && (!up || 'deviceId' in ref)) return { device: undefined, created: false, onlineChanged: false };
        // Only a reference by UUID reaches the creation below.
        const { uuid, ipAddress } = ref as { uuid: string; ipAddress: string };
        const now = new Date().toISOString();
        const connections = withConnection(connectionsOf(existing), kind, up);
        const device: Device = existing
          ? { ...existing, connections, online: connections.length > 0, ...(up ? { lastSeen: now } : {}) }
          : namedByUuid(uuid, ipAddress, connections, now);
        await store.put(device.id, device);
        if (existing) unindex(existing, true);
        index(device, existing);
        noteOnline(existing, device);
        return { device, created: !existing, onlineChanged: (existing?.online ?? false) !== device.online };
      }),
    adopt: ({ uuid, ipAddress }) =>
      serial(async () => {
        const existing = byId.get(identity().byUuid.get(uuid.toLowerCase()) ?? '');
        if (existing) return { device: existing, created: false };
        const device = namedByUuid(uuid, ipAddress, [], new Date().toISOString());
        await store.put(device.id, device);
        index(device);
        return { device, created: true };
      }),
    record: (observation, scanId) =>
      serial(async () => {
        const now = new Date().toISOString();
        const { byUuid, byIp } = identity();
        const uuidId = observation.uuid ? byUuid.get(observation.uuid.toLowerCase()) : undefined;
        const ipId = byIp.get(observation.ipAddress);
        const existing = byId.get(uuidId ?? ipId ?? '');
        // A device that moved to this address supersedes an address-only record left there.
        const superseded = uuidId && ipId && ipId !== uuidId ? byId.get(ipId) : undefined;
        const evict = superseded && !superseded.uuid ? superseded : undefined;
        const keep = <K extends keyof Device>(key: K): Device[K] | undefined => {
          const observed = observation[key as keyof DeviceObservation] as Device[K] | undefined;
          // What an unauthenticated pass could not learn must not erase what an earlier one did.
          return observed === null || observed === undefined ? existing?.[key] : observed;
        };
        const device: Device = {
          ...existing,
          ...observation,
          id: existing?.id ?? randomUUID(),
          hostname: keep('hostname') ?? null,
          domain: keep('domain') ?? null,
          firmwareVersion: keep('firmwareVersion') ?? null,
          provisioningState: keep('provisioningState') ?? null,
          provisioningMode: keep('provisioningMode') ?? null,
          uuid: keep('uuid') ?? null,
          tlsFingerprint: keep('tlsFingerprint') ?? null,
          credentialId: observation.authStatus === 'ok' ? (observation.credentialId ?? null) : (existing?.credentialId ?? null),
          online: observation.online ?? true,
          connections: withConnection(connectionsOf(existing), 'lan', observation.online ?? true),
          firstSeen: existing?.firstSeen ?? now,
          lastSeen: now,
          lastScanId: scanId ?? existing?.lastScanId ?? null,
        };
        device.online = device.connections!.length > 0;
        const ops: BatchOperation[] = [{ type: 'put', key: device.id, value: device }];
        if (evict) ops.push({ type: 'del', key: evict.id });
        await store.batch(ops);
        if (existing) unindex(existing, true);
        if (evict) unindex(evict);
        index(device, evict ? undefined : existing);
        noteOnline(existing, device);
        return { device, created: !existing };
      }),
  };
}
