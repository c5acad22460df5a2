/**
 * Streams an upload to a temporary file in the image directory, hashing and counting the bytes on
 * the way: never more than the stream's buffers in memory, refused past `maxBytes` as soon as the
 * count (or the declared length) passes it, abandoned when the client stalls. The partial file is
 * removed on every failure.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ImageErrors } from './errors.js';

export interface UploadedBytes {
  sizeBytes: number;
  sha256: string;
}

export async function receiveUpload(req: IncomingMessage, path: string, maxBytes: number, idleMs: number): Promise<UploadedBytes> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) throw ImageErrors.tooLarge(maxBytes);
  const hash = createHash('sha256');
  let size = 0;
  let failure: Error | null = null;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) return callback((failure = ImageErrors.tooLarge(maxBytes)));
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  const idle = setInterval(() => {
    if (Date.now() - lastData >= idleMs) req.destroy((failure = ImageErrors.aborted()));
  }, Math.min(1000, idleMs));
  let lastData = Date.now();
  const touch = () => void (lastData = Date.now());
  req.on('data', touch);
  try {
    await pipeline(req, meter, createWriteStream(path, { flags: 'wx', mode: 0o640 }));
  } catch (error) {
    await rm(path, { force: true });
    if (failure) throw failure;
    if ((error as { code?: string }).code === 'ENOSPC') throw ImageErrors.noSpace();
    if (!req.complete) throw ImageErrors.aborted();
    throw error;
  } finally {
    clearInterval(idle);
    req.off('data', touch);
  }
  if (size === 0) {
    await rm(path, { force: true });
    throw ImageErrors.empty();
  }
  return { sizeBytes: size, sha256: hash.digest('hex') };
}
