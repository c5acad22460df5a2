/**
 * Serves the console without authentication: the shell and its assets carry no data, and every
 * request they make to /api and /scanHub carries the user's token. Only GET and HEAD, never under
 * the paths the API, the hub and the docs own.
 */
import type { MountHandler } from '../../core/plugin-api.js';
import { ASSET_PREFIX } from './build-options.js';
import type { ConsoleBundle } from './console-bundle.js';

const RESERVED_PREFIXES = ['/api', '/scanHub', '/swagger'];

const under = (path: string, prefix: string) => path === prefix || path.startsWith(prefix + '/');

/** Everything but scripts and styles from this origin; no framing; the token stays out of referrers. */
const SHELL_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self'; style-src-elem 'self' 'unsafe-inline'; style-src-attr 'none'; img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-cache',
};

/**
 * As history-API fallbacks decide: `text/html` or `*\/*` (curl, health checkers, fetch) or no Accept
 * at all takes the shell, unless the last path segment names a file (has a dot), which stays 404.
 */
function wantsDocument(path: string, accept: string): boolean {
  if (path.slice(path.lastIndexOf('/') + 1).includes('.')) return false;
  return accept === '' || accept.includes('text/html') || accept.includes('*/*');
}

/** The mount at `/`: answers with a file of the bundle or the shell, or `undefined` to pass the request on. */
export function consoleHandler(bundle: ConsoleBundle): MountHandler {
  return function serveConsole(request, reply) {
    const { method, path } = request;
    if ((method !== 'GET' && method !== 'HEAD') || RESERVED_PREFIXES.some((p) => under(path, p))) return undefined;
    if (path.startsWith(ASSET_PREFIX)) {
      const asset = bundle.assets.get(path.slice(ASSET_PREFIX.length));
      if (!asset) return undefined;
      reply.type(asset.type).header('Cache-Control', 'public, max-age=31536000, immutable').header('X-Content-Type-Options', 'nosniff');
      return asset.body;
    }
    // Deep links: any page path asked for as a document gets the shell; the client routes it.
    if (!wantsDocument(path, request.header('accept'))) return undefined;
    for (const [name, value] of Object.entries(SHELL_HEADERS)) reply.header(name, value);
    reply.type('text/html; charset=utf-8');
    return bundle.index;
  };
}
