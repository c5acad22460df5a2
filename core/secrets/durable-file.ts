import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Flushes a directory entry (a new or renamed file) to disk. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Creates `file` (never replacing one) with owner-only permissions, its content and its entry on disk before returning. */
export function writeDurable(file: string, content: string): void {
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  syncDir(dirname(file));
}

/** Replaces `to` with `from` atomically (rename) and makes the change durable. */
export function renameDurable(from: string, to: string): void {
  renameSync(from, to);
  syncDir(dirname(to));
}
