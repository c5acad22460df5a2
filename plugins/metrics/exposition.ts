/**
 * Serves the exposition to scrapers that prove who they are: the configured bearer token, or a
 * user's token holding `metrics:read`. A plain Node handler, so it serves the main listener (as a
 * mount) and a listener of its own alike.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { PluginAuth } from '../../core/plugin-api.js';

export const METRICS_READ = 'metrics:read';

const digest = (text: string) => createHash('sha256').update(text).digest();

export interface ExpositionOptions {
  registry: Registry;
  auth: PluginAuth;
  /** The configured scrape token, or null. */
  token: string | null;
  requireAuth: boolean;
}

export type ExpositionAnswer = { status: 200; contentType: string; body: string } | { status: 401 | 403; body: string; headers: Record<string, string> };

export function createExposition({ registry, auth, token, requireAuth }: ExpositionOptions): (authorization: string | undefined) => Promise<ExpositionAnswer> {
  // Compared as digests: equal lengths for timingSafeEqual, and no early exit on the first differing byte.
  const tokenDigest = token ? digest(token) : null;
  const allowed = async (authorization: string | undefined): Promise<'ok' | 401 | 403> => {
    if (!requireAuth) return 'ok';
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!bearer) return 401;
    if (tokenDigest && timingSafeEqual(digest(bearer), tokenDigest)) return 'ok';
    const user = await auth.verifyToken(bearer);
    if (!user) return 401;
    return user.permissions.includes(METRICS_READ) ? 'ok' : 403;
  };
  return async (authorization): Promise<ExpositionAnswer> => {
    const verdict = await allowed(authorization);
    if (verdict === 401) return { status: 401, body: 'a bearer token is required\n', headers: { 'WWW-Authenticate': 'Bearer' } };
    if (verdict === 403) return { status: 403, body: `this requires the permission '${METRICS_READ}'\n`, headers: {} };
    return { status: 200, contentType: registry.contentType, body: await registry.metrics() };
  };
}

/** The same answer for a listener of the plugin's own. */
export function expositionListener(path: string, answer: ReturnType<typeof createExposition>) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = (req.url ?? '/').split('?')[0];
    if (url !== path || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    answer(req.headers.authorization).then(
      (a) => {
        const headers = a.status === 200 ? { 'Content-Type': a.contentType } : { 'Content-Type': 'text/plain; charset=utf-8', ...a.headers };
        res.writeHead(a.status, headers).end(req.method === 'HEAD' ? undefined : a.body);
      },
      () => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics could not be collected\n'),
    );
  };
}
