/** Shared helpers of the worker tests (not a test file itself). */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskTools } from '../../workers/task-api.js';

/** shared/wsman-vectors beside the repository (two levels up from test/workers, then ../shared). */
export const VECTORS_DIR = fileURLToPath(new URL('../../../shared/wsman-vectors/', import.meta.url));

export function readVector(relative: string): string {
  return readFileSync(join(VECTORS_DIR, relative), 'utf8');
}

/** Every .xml file under the vectors folder, as paths relative to it. */
export function allVectorFiles(dir = VECTORS_DIR, prefix = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...allVectorFiles(full, `${prefix}${name}/`));
    else if (name.endsWith('.xml')) out.push(`${prefix}${name}`);
  }
  return out;
}

/** Task tools for calling a task function directly in this thread. */
export function directTools<P = unknown>(signal: AbortSignal = new AbortController().signal, onProgress?: (p: P) => void): TaskTools<P> {
  return { progress: (p) => onProgress?.(p), cancelled: () => signal.aborted, signal };
}

export const DEFAULT_PASSWORD = 'P@ssw0rd1';
export const ALT_PASSWORD = 'Other-P@ss2';
export const ADMIN = { id: 'cred-default', username: 'admin', password: DEFAULT_PASSWORD };
export const ALT_ADMIN = { id: 'cred-alt', username: 'admin', password: ALT_PASSWORD };
export const WRONG = { id: 'cred-wrong', username: 'admin', password: 'not-the-password' };

/** Generous bounds: the suite runs on 2 cores beside other engineers' tests. */
export const FAST_TIMEOUTS = { connectMs: 2_000, firstByteMs: 5_000, totalMs: 10_000 };
