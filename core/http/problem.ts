import { STATUS_CODES } from 'node:http';
import type { Context, Next } from 'koa';
import { HttpError } from './http-error.js';
import type { Logger } from '../log/logger.js';

export const PROBLEM_TYPE_BASE = 'urn:amt-gateway:problem:';

/** Writes an RFC 9457 problem document. */
export function sendProblem(ctx: Context, error: HttpError): void {
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  ctx.type = 'application/problem+json';
  ctx.body = {
    type: PROBLEM_TYPE_BASE + error.code,
    title: STATUS_CODES[error.status] ?? 'Error',
    status: error.status,
    detail: error.expose ? error.message : 'The gateway could not complete the request.',
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/** Converts anything a later middleware throws into problem+json; unexpected errors become a bare 500. */
export function problemMiddleware(logger: Logger) {
  return async function problems(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      if (err instanceof HttpError) {
        if (err.status >= 500) logger.error('request failed', { requestId: ctx.state.requestId, code: err.code, error: err.message });
        sendProblem(ctx, err);
        return;
      }
      const status = (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        sendProblem(ctx, new HttpError(status, 'GW_ERR_BAD_REQUEST', status === 413 ? 'request body too large' : 'the request could not be read'));
        return;
      }
      logger.error('unhandled error', { requestId: ctx.state.requestId, error: err instanceof Error ? err.message : String(err) });
      sendProblem(ctx, new HttpError(500, 'GW_ERR_INTERNAL', 'internal error', { expose: false }));
    }
  };
}
