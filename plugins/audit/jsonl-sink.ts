/**
 * The optional JSON-lines copy of the trail for a SIEM to tail: one record a line, appended to a
 * file opened once in append mode (owner-only), so `logrotate` with `copytruncate` works.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { AuditRecord } from './api.js';

export interface JsonLinesSink {
  write(record: AuditRecord): Promise<void>;
  close(): Promise<void>;
}

export async function openJsonLinesSink(path: string): Promise<JsonLinesSink> {
  mkdirSync(dirname(path), { recursive: true });
  const file: FileHandle = await open(path, 'a', 0o600);
  // One write per line on an O_APPEND descriptor: lines from concurrent records never interleave.
  let queue: Promise<void> = Promise.resolve();
  return {
    write(record) {
      const line = JSON.stringify(record) + '\n';
      queue = queue.then(() => file.write(line).then(() => undefined));
      return queue;
    },
    async close() {
      await queue.catch(() => undefined);
      await file.close();
    },
  };
}
