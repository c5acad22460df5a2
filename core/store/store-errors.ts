import { HttpError } from '../http/http-error.js';
import { isErrorOf } from '../util/error-shape.js';

/** What an operator can do when the store is damaged; every message about damage ends with it. */
export const STORE_WAY_OUT =
  'Restore the last backup into an empty data directory (amt-gateway restore FILE), or move the damaged db folder aside and start on an empty one';

/** The data directory is held by another process. */
export class StoreLockedError extends Error {
  readonly code = 'GW_ERR_STORE_LOCKED';
  constructor(dir: string) {
    super(`data directory ${dir} is already in use by another amt-gateway process`);
    this.name = 'StoreLockedError';
  }
}

/** Whether `err` is a StoreLockedError, of any copy of the kernel (recognised by its shape). */
export function isStoreLocked(err: unknown): boolean {
  return isErrorOf(err, 'StoreLockedError', ['GW_ERR_STORE_LOCKED']);
}

/** The store cannot be opened or read as it is: a file is damaged or missing. Start-up stops with it. */
export class StoreDamagedError extends Error {
  readonly code = 'GW_ERR_STORE_DAMAGED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreDamagedError';
  }
}

/** Answered to every write once the store went read-only after a failed write. */
export function readOnlyError(reason: string): HttpError {
  return new HttpError(503, 'GW_ERR_STORE_READ_ONLY', `the store is read-only since a write failed (${reason}); fix the cause (e.g. free disk space) and restart the gateway`, {
    expose: true,
  });
}

/** Answered to a read the store could not serve because its files are damaged (`reason` without paths: it reaches clients). */
export function damagedReadError(reason: string): HttpError {
  return new HttpError(503, 'GW_ERR_STORE_DAMAGED', `the store could not read its files (${reason}). ${STORE_WAY_OUT}`, { expose: true });
}

/**
 * LevelDB's words fit for an answer: every absolute path cut to its file name (`IO error:
 * 000003.log: No space left on device`). What reaches a client, unauthenticated ones included
 * (health, readiness, errors), names no path; the log line beside it has the whole message.
 */
export function withoutPaths(text: string): string {
  return text.replace(/(?<![\w.~-])(?:\/[^\s/:;,()'"]+)+\/?/g, (path) => path.replace(/\/$/, '').split('/').pop() || 'a file');
}

/** LevelDB's own code on an error or its cause: `LEVEL_IO_ERROR`, `LEVEL_CORRUPTION`, ... */
export function levelCode(err: unknown): string | undefined {
  const shape = err as { code?: unknown; cause?: { code?: unknown } } | null;
  if (typeof shape?.code === 'string' && shape.code.startsWith('LEVEL_') && shape.code !== 'LEVEL_DATABASE_NOT_OPEN') return shape.code;
  return typeof shape?.cause?.code === 'string' ? shape.cause.code : typeof shape?.code === 'string' ? shape.code : undefined;
}

/** LevelDB's own words for an error (the cause's message when the error only says "failed to open"). */
export function levelMessage(err: unknown): string {
  const shape = err as { message?: unknown; cause?: { message?: unknown } } | null;
  if (typeof shape?.cause?.message === 'string') return shape.cause.message;
  return typeof shape?.message === 'string' ? shape.message : String(err);
}

/** An error that says the files themselves are damaged or unreadable (not a lock, not a closed store). */
export function isStoreFault(err: unknown): boolean {
  const code = levelCode(err);
  return code === 'LEVEL_CORRUPTION' || code === 'LEVEL_IO_ERROR';
}
