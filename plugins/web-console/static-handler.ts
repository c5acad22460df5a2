/**
 * Serves the console without authentication: the shell and its assets carry no data, and every
 * request they make to /api and /scanHub carries the user's token. Only GET and HEAD, never under
 * the paths the API, the hub and the docs own.
 */
import type { ParameterizedContext } from 'koa';
import type { GatewayState } from '../../core/plugin-api.js';
import { ASSET_PREFIX } from './build-options.js';
import type { ConsoleBundle } from './console-bundle.js';

export const RESERVED_PREFIXES = ['/api', '/scanHub', '/swagger'];

const under = (path: string, prefix: string) => path === prefix || path.startsWith(prefix + '/');

/** Everything but scripts and styles from this origin; no framing; the token stays out of referrers. */
const SHELL_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-cache',
};

type Ctx = ParameterizedContext<GatewayState>;

export function consoleMiddleware(bundle: () => ConsoleBundle) {
  return async function serveConsole(ctx: Ctx, next: () => Promise<void>): Promise<void> {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || RESERVED_PREFIXES.some((p) => under(ctx.path, p))) return next();
    if (ctx.path.startsWith(ASSET_PREFIX)) {
      const asset = bundle().assets.get(ctx.path.slice(ASSET_PREFIX.length));
      if (!asset) return next();
      ctx.type = asset.type;
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.body = asset.body;
      return;
    }
    // Deep links: any page path a browser asks for as a document gets the shell; the client routes it.
    if (!(ctx.get('accept') ?? '').includes('text/html')) return next();
    ctx.set(SHELL_HEADERS);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = bundle().index;
  };
}
