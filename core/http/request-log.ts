import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../log/logger.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** One JSON line per request: id, method, path (never the query: it may carry a token), status, duration. */
export function requestLogMiddleware(logger: Logger) {
  return async function requestLog(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    const offered = ctx.get('X-Request-Id');
    ctx.state.requestId = REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      await next();
    } finally {
      logger.info('request', {
        requestId: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        user: ctx.state.user?.username,
      });
    }
  };
}
