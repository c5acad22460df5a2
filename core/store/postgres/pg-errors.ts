import { HttpError } from '../../http/http-error.js';

/** SQLSTATE classes that say the database cannot be reached or is going away, not that a statement is wrong. */
const UNREACHABLE_CLASSES = new Set(['08', '53', '57', '58']);

/**
 * Whether `err` says the database is out of reach (refused, reset, timed out, shutting down, too
 * many connections) rather than that a statement failed: the first is answered with 503.
 */
export function isUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return UNREACHABLE_CLASSES.has(code.slice(0, 2));
  if (typeof code === 'string') return true; // ECONNREFUSED, ECONNRESET, ETIMEDOUT, ...
  const message = (err as Error | null)?.message ?? '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended|not queryable|Query read timeout/i.test(message);
}

/**
 * Answered to a request whose read or write the database could not take: nothing of a write was
 * applied. The reason (which names the database's host) goes to the log, not to the client.
 */
export function unavailableError(cause?: unknown): HttpError {
  return new HttpError(503, 'GW_ERR_STORE_UNAVAILABLE', "the store's database cannot be reached; nothing was changed. Try again shortly", {
    expose: true,
    headers: { 'Retry-After': '2' },
    ...(cause === undefined ? {} : { cause }),
  });
}

/** A short reason without connection details (never the URL, which may hold a password). */
export function unreachableReason(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const message = ((err as Error | null)?.message ?? String(err)).replace(/postgres(ql)?:\/\/\S+/gi, 'postgres://…');
  return typeof code === 'string' ? `${code}: ${message}` : message;
}
