/**
 * The images: records in the plugin's store namespace (so backups carry them, as references), bytes
 * in files named by id in the image directory (never in the store, never in memory). An image open
 * for a session is pinned: deleting it is refused until every session released it.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { KeyValueStore, Logger } from '../../core/plugin-api.js';
import { openFileMedium } from '../../workers/amt/redirection/ider/file-medium.js';
import type { ImageKind, ImageRecord, ImageService, OpenedImage } from './api.js';
import { ImageErrors } from './errors.js';
import type { ImageView } from './schemas.js';

const KEY = 'image:';

export interface ImageStoreOptions {
  directory: string;
  store: KeyValueStore;
  logger: Logger;
  maxImages: number;
}

export function createImageStore({ directory, store, logger, maxImages }: ImageStoreOptions) {
  const records = new Map<string, ImageRecord>();
  /** Names taken by a stored image or an upload under way. */
  const names = new Set<string>();
  const pins = new Map<string, number>();
  /** Whether each image's file was found with its recorded size (checked at start and at each open). */
  const available = new Map<string, boolean>();
  const fileOf = (id: string) => join(directory, `${id}.img`);

  async function checkFile(record: ImageRecord): Promise<boolean> {
    const size = await stat(fileOf(record.id)).then((s) => s.size, () => -1);
    const ok = size === record.sizeBytes;
    available.set(record.id, ok);
    return ok;
  }

  const view = (record: ImageRecord): ImageView => ({ ...record, inUse: pins.get(record.id) ?? 0, available: available.get(record.id) ?? false });

  return {
    directory,
    /** Loads the records and checks every file; a missing file is reported, never silently dropped. */
    async load(): Promise<void> {
      await mkdir(directory, { recursive: true, mode: 0o750 });
      for await (const page of store.pages<ImageRecord>({ prefix: KEY })) {
        for (const [, record] of page) {
          records.set(record.id, record);
          names.add(record.name);
        }
      }
      const missing = [];
      for (const record of records.values()) if (!(await checkFile(record))) missing.push(`${record.name} (${fileOf(record.id)})`);
      if (missing.length) logger.warn('image files missing or changed: restore them into the image directory', { directory, images: missing });
    },
    list: (): ImageView[] => [...records.values()].sort((a, b) => a.name.localeCompare(b.name)).map(view),
    view(id: string): ImageView {
      const record = records.get(id);
      if (!record) throw ImageErrors.notFound(id);
      return view(record);
    },
    get: (id: string) => records.get(id),
    /** Reserves `name` for an upload; returns the release of the reservation. */
    reserve(name: string): () => void {
      if (names.has(name)) throw ImageErrors.duplicateName(name);
      if (records.size >= maxImages) throw ImageErrors.tooMany(maxImages);
      names.add(name);
      return () => void names.delete(name);
    },
    /** A temporary path for an upload in the image directory (same filesystem: the rename is atomic). */
    uploadPath: () => join(directory, `.upload-${randomUUID()}`),
    /** Moves a finished upload into place and records it. The name stays reserved (now by the image). */
    async add(tempPath: string, fields: Omit<ImageRecord, 'id'>): Promise<ImageRecord> {
      const record: ImageRecord = { id: randomUUID(), ...fields };
      await rename(tempPath, fileOf(record.id));
      try {
        await store.put(KEY + record.id, record);
      } catch (error) {
        await rm(fileOf(record.id), { force: true });
        throw error;
      }
      records.set(record.id, record);
      available.set(record.id, true);
      return record;
    },
    async remove(id: string): Promise<ImageRecord> {
      const record = records.get(id);
      if (!record) throw ImageErrors.notFound(id);
      const inUse = pins.get(id) ?? 0;
      if (inUse > 0) throw ImageErrors.inUse(id, inUse);
      await store.del(KEY + id);
      records.delete(id);
      names.delete(record.name);
      available.delete(id);
      await rm(fileOf(id), { force: true });
      return record;
    },
    service: (): ImageService => ({
      get: (id) => records.get(id),
      async open(id: string, kind: ImageKind): Promise<OpenedImage> {
        const record = records.get(id);
        if (!record) throw ImageErrors.notFound(id);
        if (record.kind !== kind) throw ImageErrors.kind(id, record.kind, kind);
        // Pinned before the open so that a delete racing it is refused.
        pins.set(id, (pins.get(id) ?? 0) + 1);
        let released = false;
        const unpin = () => {
          if (released) return;
          released = true;
          const left = (pins.get(id) ?? 1) - 1;
          if (left > 0) pins.set(id, left);
          else pins.delete(id);
        };
        try {
          if (!(await checkFile(record))) throw ImageErrors.unavailable(id);
          const medium = await openFileMedium(fileOf(id), kind);
          return {
            image: record,
            medium,
            release: async () => {
              unpin();
              await medium.close().catch(() => undefined);
            },
          };
        } catch (error) {
          unpin();
          throw error;
        }
      },
    }),
  };
}

export type ImageStore = ReturnType<typeof createImageStore>;
