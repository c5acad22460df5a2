import type { Context } from 'koa';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthenticatedUser, RouteReply, RouteRequest } from './route-api.js';

/** A route's request over Koa's context: the handler sees the gateway's type, never Koa's. */
class KoaRouteRequest implements RouteRequest {
  readonly method: string;
  readonly path: string;
  readonly params: Record<string, string>;
  readonly query: Record<string, unknown>;
  readonly body: unknown;
  readonly user: AuthenticatedUser | undefined;
  readonly requestId: string;
  readonly raw: IncomingMessage;
  readonly #ctx: Context;

  constructor(ctx: Context, query: Record<string, unknown>, body: unknown, user: AuthenticatedUser | undefined) {
    this.#ctx = ctx;
    this.method = ctx.method;
    this.path = ctx.path;
    this.params = (ctx as { params?: Record<string, string> }).params ?? {};
    this.query = query;
    this.body = body;
    this.user = user;
    this.requestId = ctx.state.requestId as string;
    this.raw = ctx.req;
  }

  get ip(): string {
    return this.#ctx.ip;
  }

  header(name: string): string {
    return this.#ctx.get(name);
  }
}

class KoaRouteReply implements RouteReply {
  readonly #ctx: Context;
  statusSet = false;
  hijacked = false;

  constructor(ctx: Context) {
    this.#ctx = ctx;
  }

  status(code: number): this {
    this.#ctx.status = code;
    this.statusSet = true;
    return this;
  }

  header(name: string, value: string): this {
    this.#ctx.set(name, value);
    return this;
  }

  type(contentType: string): this {
    this.#ctx.type = contentType;
    return this;
  }

  hijack(): ServerResponse {
    this.hijacked = true;
    this.#ctx.respond = false;
    return this.#ctx.res;
  }
}

export function routeRequest(ctx: Context, query: Record<string, unknown>, body: unknown, user: AuthenticatedUser | undefined): RouteRequest {
  return new KoaRouteRequest(ctx, query, body, user);
}

export function routeReply(ctx: Context): KoaRouteReply {
  return new KoaRouteReply(ctx);
}

const isRaw = (value: unknown): boolean =>
  value instanceof Uint8Array || (typeof value === 'object' && value !== null && typeof (value as { pipe?: unknown }).pipe === 'function');

/**
 * Puts a handler's return value on the response: Buffers and streams as they are, anything else
 * as JSON text. Returns false when the handler gave no answer (undefined, no status set).
 */
export function applyResult(ctx: Context, reply: KoaRouteReply, result: unknown): boolean {
  if (reply.hijacked) return true;
  if (result === undefined) return reply.statusSet;
  if (isRaw(result) || result === null) {
    ctx.body = result;
  } else if (typeof result === 'string') {
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(result);
  } else {
    // Serialised here as Koa would (a json type kept, any other replaced): Koa tests an object body
    // against the global `Response`, whose first use loads Node's fetch (~15 ms of the first answer).
    if (!/\bjson\b/i.test(ctx.type)) ctx.type = 'application/json';
    ctx.body = JSON.stringify(result);
  }
  return true;
}
