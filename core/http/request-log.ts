import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from '../log/logger.js';
import type { HttpRequestCompletedEvent } from '../plugin-api.js';

/** The route template that answered: the router's matched path, else the mount's prefix; never the raw URL. */
function routeTemplate(ctx: Context): string | null {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  if (typeof matched === 'string') return matched;
  return typeof ctx.state.mountPrefix === 'string' ? ctx.state.mountPrefix : null;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** One JSON line per request: id, method, path (never the query: it may carry a token), status, duration. */
export function requestLogMiddleware(logger: Logger, completed?: (event: HttpRequestCompletedEvent) => void) {
  return async function requestLog(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    const offered = ctx.get('X-Request-Id');
    ctx.state.requestId = REQUEST_ID.test(offered) ? offered : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      await next();
    } finally {
      const elapsedMs = performance.now() - started;
      logger.info('request', {
        requestId: ctx.state.requestId,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        durationMs: Math.round(elapsedMs * 10) / 10,
        user: ctx.state.user?.username,
      });
      completed?.({ method: ctx.method, route: routeTemplate(ctx), status: ctx.status, durationSeconds: elapsedMs / 1000 });
    }
  };
}
