import { randomBytes } from 'node:crypto';
import type { KeyValueStore } from '../../../core/plugin-api.js';
import type { Scan } from '../api.js';

/**
 * Scans in the plugin's store, newest first. Ids sort by start time so the store iterates them in
 * order; the newest `historySize` finished scans are kept.
 */
export interface ScanHistory {
  newId(): string;
  get(id: string): Scan | undefined;
  /** Newest first. */
  list(): Scan[];
  save(scan: Scan): Promise<void>;
  /**
   * Marks scans left `running` by a process that died (by default: of an instance that is down, or
   * from before clusters) as `interrupted`, with `found` recounted from
   * the devices stored under each (progress is saved periodically, device writes at once); returns them.
   */
  markInterrupted(storedUnder: (scanId: string) => number, ownedBy?: (instance: string | undefined) => boolean): Promise<Scan[]>;
  /** The cluster instance that runs (or ran) the scan; undefined for a scan from before clusters. */
  ownerOf(id: string): string | undefined;
}

/** The instance that runs a scan is kept beside it in the store (never in the API's answers). */
type StoredScan = Scan & { instance?: string };

/** Which instance this is, and which are up (a cluster; a one-box site is one instance alone). */
export interface ScanOwnership {
  self: string;
  isUp(instance: string): boolean;
}

export async function openScanHistory(store: KeyValueStore, historySize: number, ownership: ScanOwnership = { self: 'local', isUp: () => false }): Promise<ScanHistory> {
  const scans = new Map<string, Scan>();
  const owners = new Map<string, string>();
  const keep = (id: string, { instance, ...scan }: StoredScan) => {
    scans.set(id, scan);
    if (instance) owners.set(id, instance);
  };
  for await (const [id, scan] of store.entries<StoredScan>()) keep(id, scan);
  // A scan started, advanced or finished by another instance of a cluster.
  store.onRemoteChange<StoredScan>((id, scan) => {
    if (scan) keep(id, scan);
    else {
      scans.delete(id);
      owners.delete(id);
    }
  });
  let lastStamp = '';
  const newest = () => [...scans.values()].sort((a, b) => b.id.localeCompare(a.id));

  const trim = async () => {
    const finished = newest().filter((s) => s.status !== 'running');
    const doomed = finished.slice(historySize);
    for (const scan of doomed) {
      scans.delete(scan.id);
      owners.delete(scan.id);
    }
    await store.batch(doomed.map((s) => ({ type: 'del' as const, key: s.id })));
  };

  return {
    newId() {
      let stamp = Date.now().toString(36).padStart(9, '0');
      if (stamp <= lastStamp) stamp = lastStamp;
      lastStamp = stamp;
      return `${stamp}-${randomBytes(6).toString('hex')}`;
    },
    get: (id) => scans.get(id),
    list: newest,
    ownerOf: (id) => owners.get(id),
    async save(scan) {
      scans.set(scan.id, scan);
      owners.set(scan.id, ownership.self);
      await store.put(scan.id, { ...scan, instance: ownership.self } satisfies StoredScan);
      if (scan.status !== 'running') await trim();
    },
    async markInterrupted(storedUnder, ownedBy = (instance) => instance === undefined || !ownership.isUp(instance)) {
      const now = new Date().toISOString();
      const interrupted = newest()
        .filter((s) => s.status === 'running' && ownedBy(owners.get(s.id)))
        .map((s): Scan => {
          const found = storedUnder(s.id);
          // Each device stored after the last progress save is one more address done.
          const scanned = Math.min(s.total, s.scanned + Math.max(0, found - s.found));
          return { ...s, found, scanned, status: 'interrupted', finishedAt: now, error: 'the gateway stopped while the scan was running' };
        });
      for (const scan of interrupted) scans.set(scan.id, scan);
      await store.batch(interrupted.map((s) => ({ type: 'put' as const, key: s.id, value: { ...s, ...(owners.has(s.id) ? { instance: owners.get(s.id) } : {}) } })));
      return interrupted;
    },
  };
}
