/** An IDE-R medium read from an image file with positional reads (never loaded whole). */
import { open, type FileHandle } from 'node:fs/promises';
import type { IderMedium } from './ider-server.js';
import type { MediumKind } from './scsi-data.js';

export interface FileMedium extends IderMedium {
  close(): Promise<void>;
}

/** Opens `path` read-only; its size is taken when opened. */
export async function openFileMedium(path: string, kind: MediumKind): Promise<FileMedium> {
  const handle: FileHandle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    return {
      kind,
      sizeBytes: size,
      read: async (into, offset, length, position) => (await handle.read(into, offset, length, position)).bytesRead,
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
