import type { Context, Next } from 'koa';

/**
 * Defaults every response starts with, before any handler runs (so problems carry them too): not
 * stored by any cache (a login's token, `/api/credentials`), never sniffed into another type, never
 * framed (the docs page at /swagger included). A handler that means otherwise sets its own (the
 * console's hashed assets are cacheable, its shell brings a full Content-Security-Policy).
 */
const DEFAULTS: ReadonlyArray<[string, string]> = [
  ['Cache-Control', 'no-store'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Content-Security-Policy', "frame-ancestors 'none'"],
];

export function securityHeadersMiddleware() {
  return function securityHeaders(ctx: Context, next: Next): Promise<void> {
    for (const [name, value] of DEFAULTS) ctx.set(name, value);
    return next();
  };
}
