/**
 * The optional JSON-lines copy of the trail for a SIEM to tail: one record a line, appended to a
 * file opened once in append mode (owner-only), so `logrotate` with `copytruncate` works.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { AuditRecord } from './api.js';

export interface JsonLinesSink {
  /**
   * Appends the record once it is stored. Call it in id order (as records are appended): lines
   * leave in call order even when a later record's store write finishes first.
   */
  write(stored: Promise<AuditRecord>): Promise<void>;
  close(): Promise<void>;
}

export async function openJsonLinesSink(path: string): Promise<JsonLinesSink> {
  mkdirSync(dirname(path), { recursive: true });
  const file: FileHandle = await open(path, 'a', 0o600);
  // One write per line on an O_APPEND descriptor: lines from concurrent records never interleave.
  let queue: Promise<void> = Promise.resolve();
  return {
    write(stored) {
      // Handled here at once; its failure still reaches the caller through `written`.
      stored.catch(() => undefined);
      const written = queue.then(() => stored).then((record) => file.write(JSON.stringify(record) + '\n')).then(() => undefined);
      // A record that failed (to store or to write) is reported to its caller; the lines after it still go.
      queue = written.catch(() => undefined);
      return written;
    },
    async close() {
      await queue;
      await file.close();
    },
  };
}
