export type { ProblemFieldError } from './problem-schema.js';
import type { ProblemFieldError } from './problem-schema.js';

/**
 * An error with an HTTP status. Handlers throw it; the kernel turns it into
 * `application/problem+json`. Only `expose`d details reach the client.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly expose: boolean;
  readonly errors?: ProblemFieldError[];
  readonly headers?: Record<string, string>;

  constructor(
    status: number,
    code: string,
    detail: string,
    options: { expose?: boolean; errors?: ProblemFieldError[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.expose = options.expose ?? status < 500;
    if (options.errors) this.errors = options.errors;
    if (options.headers) this.headers = options.headers;
  }
}

/** What makes an error an HTTP problem, whatever its class (see {@link isHttpError}). */
export interface HttpErrorShape {
  status: number;
  code: string;
  message: string;
  expose?: boolean;
  errors?: ProblemFieldError[];
  headers?: Record<string, string>;
}

/**
 * Recognises an HTTP error by its shape (an integer `status` 400–599, a string `code` and
 * `message`), not by `instanceof`: an error from another copy of this package is one too.
 */
export function isHttpError(err: unknown): err is HttpErrorShape {
  if (typeof err !== 'object' || err === null) return false;
  const { status, code, message } = err as { status?: unknown; code?: unknown; message?: unknown };
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 && typeof code === 'string' && typeof message === 'string';
}
