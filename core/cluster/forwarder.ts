/**
 * Forwarding a request to the instance that must serve it (e.g. the one holding a device's CIRA
 * tunnel): the same method, path, query, body and bearer token, signed as an internal call, so that
 * the receiver serves it itself (it authenticates the token again: nothing is taken on trust but
 * "this came from an instance"). An instance that does not answer within the bounds fails the
 * request with 503 at once; a forwarded request is never forwarded again.
 */
import type { Context } from 'koa';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import type { RouteRequest } from '../http/route-api.js';
import { HttpError } from '../http/http-error.js';
import type { Logger } from '../log/logger.js';
import { INTERNAL_HEADER, signInternal, type InternalVerifier } from './internal-key.js';
import type { RequestRouter } from './cluster-api.js';

/** Headers of the answer passed back to the client (the rest are the hop's or set by this instance). */
const PASSED_BACK = ['content-type', 'x-total-count', 'retry-after', 'location', 'etag', 'cache-control', 'www-authenticate'];
const CONNECT_TIMEOUT_MS = 2000;

export interface ForwarderOptions {
  self: string;
  key: Buffer;
  verifier: InternalVerifier;
  routers: RequestRouter[];
  /** The URL of an up instance, or undefined when it is down or unknown. */
  urlOf(id: string): Promise<string | undefined>;
  timeoutMs: number;
  logger: Logger;
}

/** Returns true when the request was forwarded (the answer is set), false to serve it here. */
export type Forwarder = (req: RouteRequest, ctx: Context) => Promise<boolean>;

export function createForwarder(options: ForwarderOptions): Forwarder & { close(): Promise<void> } {
  // A dead host does not refuse: the connection attempt itself is bounded, so that the caller hears 503 soon.
  const agent = new Agent({ connect: { timeout: CONNECT_TIMEOUT_MS }, keepAliveTimeout: 10_000 });
  const forward = async (req: RouteRequest, ctx: Context): Promise<boolean> => {
    const signature = ctx.get(INTERNAL_HEADER);
    if (signature) {
      if (!options.verifier.verify(signature, ctx.method, ctx.originalUrl)) {
        throw new HttpError(401, 'GW_ERR_INTERNAL_SIGNATURE', 'the internal call signature is invalid or expired');
      }
      // The client is the one the forwarding instance served (audit records and throttles name it, not that instance).
      const client = ctx.get('x-forwarded-for');
      if (isIP(client)) ctx.request.ip = client;
      return false; // forwarded here: served here
    }
    if (options.routers.length === 0) return false;
    let target: string | null = null;
    for (const router of options.routers) {
      target = await router(req);
      if (target) break;
    }
    if (!target || target === options.self) return false;
    const base = await options.urlOf(target);
    if (!base) throw new HttpError(503, 'GW_ERR_INSTANCE_UNAVAILABLE', 'the gateway instance that must serve this request is down; try again once the device reconnects', { expose: true, headers: { 'Retry-After': '5' } });
    const headers: Record<string, string> = { [INTERNAL_HEADER]: signInternal(options.key, options.self, ctx.method, ctx.originalUrl), 'x-forwarded-for': ctx.ip };
    for (const name of ['authorization', 'accept', 'content-type', 'x-request-id']) {
      const value = ctx.get(name);
      if (value) headers[name] = value;
    }
    const body = ctx.request.body !== undefined && !['GET', 'HEAD', 'DELETE'].includes(ctx.method) ? JSON.stringify(ctx.request.body) : undefined;
    try {
      const answer = await request(new URL(ctx.originalUrl, base), {
        method: ctx.method as 'GET',
        headers,
        ...(body === undefined ? {} : { body }),
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        signal: AbortSignal.timeout(options.timeoutMs),
        dispatcher: agent,
      });
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      ctx.status = answer.statusCode;
      for (const name of PASSED_BACK) {
        const value = answer.headers[name];
        if (typeof value === 'string') ctx.set(name, value);
      }
      ctx.set('x-amtgw-served-by', target);
      ctx.body = bytes.length > 0 || answer.statusCode !== 204 ? bytes : null;
      return true;
    } catch (err) {
      options.logger.warn('forwarding to another instance failed', { instance: target, path: ctx.path, error: (err as Error).message });
      throw new HttpError(503, 'GW_ERR_INSTANCE_UNAVAILABLE', 'the gateway instance that must serve this request did not answer; try again shortly', {
        expose: true,
        headers: { 'Retry-After': '5' },
      });
    }
  };
  return Object.assign(forward, { close: () => agent.close() });
}
