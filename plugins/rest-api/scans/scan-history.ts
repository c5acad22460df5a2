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
   * Marks scans left `running` by a process that died as `interrupted`, with `found` recounted from
   * the devices stored under each (progress is saved periodically, device writes at once); returns them.
   */
  markInterrupted(storedUnder: (scanId: string) => number): Promise<Scan[]>;
}

export async function openScanHistory(store: KeyValueStore, historySize: number): Promise<ScanHistory> {
  const scans = new Map<string, Scan>();
  for await (const [id, scan] of store.entries<Scan>()) scans.set(id, scan);
  store.onRemoteChange<Scan>((id, scan) => (scan ? scans.set(id, scan) : scans.delete(id)));
  let lastStamp = '';
  const newest = () => [...scans.values()].sort((a, b) => b.id.localeCompare(a.id));

  const trim = async () => {
    const finished = newest().filter((s) => s.status !== 'running');
    const doomed = finished.slice(historySize);
    for (const scan of doomed) scans.delete(scan.id);
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
    async save(scan) {
      scans.set(scan.id, scan);
      await store.put(scan.id, scan);
      if (scan.status !== 'running') await trim();
    },
    async markInterrupted(storedUnder) {
      const now = new Date().toISOString();
      const interrupted = newest()
        .filter((s) => s.status === 'running')
        .map((s): Scan => {
          const found = storedUnder(s.id);
          // Each device stored after the last progress save is one more address done.
          const scanned = Math.min(s.total, s.scanned + Math.max(0, found - s.found));
          return { ...s, found, scanned, status: 'interrupted', finishedAt: now, error: 'the gateway stopped while the scan was running' };
        });
      for (const scan of interrupted) scans.set(scan.id, scan);
      await store.batch(interrupted.map((s) => ({ type: 'put' as const, key: s.id, value: s })));
      return interrupted;
    },
  };
}
