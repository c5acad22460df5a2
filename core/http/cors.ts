import type { Context, Next } from 'koa';
import { HttpError } from './http-error.js';

/** Cross-origin rules: the configured origins, and what the plugins' routes and registrations need. */
export interface CorsPolicy {
  origins: string[];
  maxAgeSeconds: number;
  /** Path prefixes CORS applies to: the prefixes of the plugins' routes and mounts. */
  paths: string[];
  /** Request headers a front end may send, beyond the kernel's own. */
  allowHeaders: string[];
  /** Response headers a front end may read, beyond the kernel's own. */
  exposeHeaders: string[];
}

/** What the kernel itself reads and sends on every request. */
const KERNEL_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Requested-With', 'X-Request-Id'];
const KERNEL_EXPOSED_HEADERS = ['X-Request-Id'];
const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';

/** Header names once each, whatever their case, in the order first given. */
function headerList(names: string[]): string {
  const seen = new Map<string, string>();
  for (const name of names) if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  return [...seen.values()].join(', ');
}

/**
 * CORS for the configured front-end origins only (CONTRACT section 1). Other origins get no CORS
 * headers at all, and their preflights are refused.
 */
export function corsMiddleware(options: CorsPolicy) {
  const allowed = new Set(options.origins);
  const allowHeaders = headerList([...KERNEL_ALLOWED_HEADERS, ...options.allowHeaders]);
  const exposeHeaders = headerList([...options.exposeHeaders, ...KERNEL_EXPOSED_HEADERS]);
  const paths = [...new Set(options.paths.map((p) => p.replace(/\/+$/, '') || '/'))];
  return async function cors(ctx: Context, next: Next): Promise<void> {
    const origin = ctx.get('Origin');
    if (!origin || !paths.some((p) => p === '/' || ctx.path === p || ctx.path.startsWith(p + '/'))) return next();
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
      ctx.set('Access-Control-Allow-Headers', allowHeaders);
      ctx.set('Access-Control-Max-Age', String(options.maxAgeSeconds));
      ctx.status = 204;
      return;
    }
    ctx.set('Access-Control-Expose-Headers', exposeHeaders);
    return next();
  };
}
