import type { Context, Next } from 'koa';
import { HttpError } from './http-error.js';

export interface CorsOptions {
  origins: string[];
  maxAgeSeconds: number;
  /** Path prefixes CORS applies to (`/api`, `/scanHub`). */
  paths: string[];
}

const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Requested-With, X-SignalR-User-Agent, X-Request-Id';
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * CORS for the configured front-end origins only (CONTRACT section 1). Other origins get no CORS
 * headers at all, and their preflights are refused.
 */
export function corsMiddleware(options: CorsOptions) {
  const allowed = new Set(options.origins);
  return async function cors(ctx: Context, next: Next): Promise<void> {
    const origin = ctx.get('Origin');
    if (!origin || !options.paths.some((p) => ctx.path === p || ctx.path.startsWith(p + '/'))) return next();
    const isPreflight = ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '';
    ctx.vary('Origin');
    if (!allowed.has(origin)) {
      if (isPreflight) throw new HttpError(403, 'GW_ERR_CORS_ORIGIN', 'origin not allowed');
      return next();
    }
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Access-Control-Allow-Credentials', 'true');
    if (isPreflight) {
      ctx.set('Access-Control-Allow-Methods', ALLOWED_METHODS);
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', String(options.maxAgeSeconds));
      ctx.status = 204;
      return;
    }
    ctx.set('Access-Control-Expose-Headers', 'X-Total-Count, X-Request-Id');
    return next();
  };
}
