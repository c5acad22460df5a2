/** Shared helpers of the worker tests (not a test file itself). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskTools } from '../../workers/task-api.js';
import deviceTask from '../../workers/tasks/device-task.js';
import type { AmtFailure, DeviceOperationInput, OperationMeta, PowerStateInfo } from '../../workers/tasks/task-types.js';

/** The project's WS-Management fixtures (test/fixtures/wsman): AMT-shaped responses written for these tests. */
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/wsman/', import.meta.url));

export function readFixture(name: string): string {
  return readFileSync(join(FIXTURES_DIR, name), 'utf8');
}

/** Every .xml fixture, by file name. */
export function allFixtureFiles(): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((name) => name.endsWith('.xml'))
    .sort();
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

/** A power read as the device gate runs it (the `device-task` task with `power-read`), its value spread into the outcome. */
export type PowerReadResult = (({ ok: true } & PowerStateInfo) | { ok: false; error: AmtFailure }) & OperationMeta;

/** Runs the `power-read` device task in this thread, as the `device-task` worker task does, on no carried Digest session. */
export async function powerRead(input: DeviceOperationInput, tools: TaskTools): Promise<PowerReadResult> {
  const out = await deviceTask({ ...input, digest: null, task: 'power-read', input: {} }, tools);
  return out.ok ? { ...out, ...(out.value as PowerStateInfo) } : out;
}
