import { STATUS_CODES } from 'node:http';
import type { Context, Next } from 'koa';
import type { ProblemFieldError } from './http-error.js';
import type { Problem } from './problem-schema.js';
import type { Logger } from '../log/logger.js';

export const PROBLEM_TYPE_BASE = 'urn:amt-gateway:problem:';

/** What the kernel reads from a thrown error: its shape, never its class. */
export interface ProblemSource {
  status: number;
  code: string;
  expose: boolean;
  message: string;
  errors?: ProblemFieldError[];
  headers?: Record<string, string>;
}

function genericDetail(status: number): string {
  if (status === 413) return 'request body too large';
  return status === 400 ? 'the request could not be read' : (STATUS_CODES[status] ?? 'the request failed').toLowerCase();
}

const CODE = /^[A-Z][A-Z0-9_]{1,63}$/;
const MAX_FIELD_ERRORS = 100;
const MAX_HEADERS = 20;

function fieldErrors(value: unknown): ProblemFieldError[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const errors = value
    .slice(0, MAX_FIELD_ERRORS)
    .filter((e): e is ProblemFieldError => typeof e === 'object' && e !== null && typeof (e as ProblemFieldError).path === 'string' && typeof (e as ProblemFieldError).message === 'string')
    .map((e) => ({ path: e.path, message: e.message }));
  return errors.length ? errors : undefined;
}

function headerValues(value: unknown): Record<string, string> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(value).slice(0, MAX_HEADERS)) {
    if (typeof v === 'string' || typeof v === 'number') headers[name] = String(v);
  }
  return headers;
}

/**
 * Reads an error as an HTTP problem by its shape (`status` or `statusCode`, `code`, `expose`,
 * `headers`, `errors`), as Koa's `onerror` does: a plugin bringing its own copy of the package
 * throws an `HttpError` of another class, and it must still keep its status. Undefined when the
 * error carries no client error or server error status.
 */
export function problemSource(err: unknown): ProblemSource | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const shape = err as { status?: unknown; statusCode?: unknown; code?: unknown; expose?: unknown; message?: unknown; errors?: unknown; headers?: unknown };
  const status = typeof shape.status === 'number' ? shape.status : shape.statusCode;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) return undefined;
  const coded = typeof shape.code === 'string' && CODE.test(shape.code);
  const source: ProblemSource = {
    status,
    // A library's error without a code of ours (e.g. the body parser's) tells its status, not its wording.
    code: coded ? (shape.code as string) : status === 413 ? 'GW_ERR_BODY_TOO_LARGE' : 'GW_ERR_BAD_REQUEST',
    expose: coded ? (typeof shape.expose === 'boolean' ? shape.expose : status < 500) : status < 500,
    message: coded ? (typeof shape.message === 'string' ? shape.message : '') : genericDetail(status),
  };
  const errors = fieldErrors(shape.errors);
  if (errors) source.errors = errors;
  const headers = headerValues(shape.headers);
  if (headers) source.headers = headers;
  return source;
}


/** Writes an RFC 9457 problem document. */
export function sendProblem(ctx: Context, problem: ProblemSource): void {
  ctx.status = problem.status;
  for (const [name, value] of Object.entries(problem.headers ?? {})) ctx.set(name, value);
  ctx.type = 'application/problem+json';
  const body: Problem = {
    type: PROBLEM_TYPE_BASE + problem.code,
    title: STATUS_CODES[problem.status] ?? 'Error',
    status: problem.status,
    detail: problem.expose && problem.message ? problem.message : 'The gateway could not complete the request.',
    ...(problem.errors ? { errors: problem.errors } : {}),
  };
  ctx.body = body;
}

const INTERNAL: ProblemSource = { status: 500, code: 'GW_ERR_INTERNAL', expose: false, message: '' };

/** Converts anything a later middleware throws into problem+json; unexpected errors become a bare 500. */
export function problemMiddleware(logger: Logger) {
  return async function problems(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      const problem = problemSource(err);
      if (problem) {
        if (problem.status >= 500) logger.error('request failed', { requestId: ctx.state.requestId, code: problem.code, error: problem.message });
        sendProblem(ctx, problem);
        return;
      }
      logger.error('unhandled error', { requestId: ctx.state.requestId, error: err instanceof Error ? err.message : String(err) });
      sendProblem(ctx, INTERNAL);
    }
  };
}
