/**
 * The rows of a device list the table can see, fetched in pages of ?offset=&limit= as they scroll
 * into view. The list's order is the API's (by address); descending maps a row to the mirrored
 * offset. At most MAX_PAGES pages are kept.
 */
import { apiFull, query } from '../api.js';
import type { Device } from '../hub.js';

export const PAGE_SIZE = 200;
const MAX_PAGES = 100;

export interface DeviceFilters {
  q: string;
  provisioningState: string;
  online: string;
}

export class DeviceWindow {
  total: number | null = null;
  private pages = new Map<number, Device[]>();
  private pending = new Set<number>();
  private byId = new Map<string, Device>();
  private closed = false;

  constructor(
    private readonly filters: DeviceFilters,
    readonly descending: boolean,
    private readonly changed: () => void,
    private readonly failed: (err: unknown) => void,
  ) {}

  close(): void {
    this.closed = true;
  }

  row(index: number): Device | undefined {
    if (this.total === null) return undefined;
    const serverIndex = this.descending ? this.total - 1 - index : index;
    return this.pages.get(Math.floor(serverIndex / PAGE_SIZE))?.[serverIndex % PAGE_SIZE];
  }

  /** Makes sure rows [from, to) are loaded or loading. */
  want(from: number, to: number): void {
    if (this.total === null) return void this.load(0);
    const last = Math.min(to, this.total) - 1;
    if (last < 0) return;
    const a = this.descending ? this.total - 1 - last : from;
    const b = this.descending ? this.total - 1 - from : last;
    for (let p = Math.floor(a / PAGE_SIZE); p <= Math.floor(b / PAGE_SIZE); p++) void this.load(p);
  }

  /** A live status change for a device this window holds. */
  update(deviceId: string, patch: Partial<Device>): boolean {
    const device = this.byId.get(deviceId);
    if (!device) return false;
    Object.assign(device, patch);
    return true;
  }

  private async load(page: number): Promise<void> {
    if (this.pages.has(page) || this.pending.has(page)) return;
    this.pending.add(page);
    const f = this.filters;
    try {
      const res = await apiFull<Device[]>(
        'GET',
        `/devices${query({ offset: page * PAGE_SIZE, limit: PAGE_SIZE, q: f.q.trim() || undefined, provisioningState: f.provisioningState || undefined, online: f.online || undefined })}`,
      );
      if (this.closed) return;
      this.total = res.total ?? res.body.length;
      this.store(page, res.body);
      this.changed();
    } catch (err) {
      if (!this.closed) this.failed(err);
    } finally {
      this.pending.delete(page);
    }
  }

  private store(page: number, devices: Device[]): void {
    if (this.pages.size >= MAX_PAGES) {
      const oldest = this.pages.keys().next().value as number;
      for (const d of this.pages.get(oldest) ?? []) this.byId.delete(d.id);
      this.pages.delete(oldest);
    }
    this.pages.set(page, devices);
    for (const d of devices) this.byId.set(d.id, d);
  }
}
