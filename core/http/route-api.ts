/**
 * The public types of a JSON route: its spec, and the request and reply its handler gets.
 * The gateway's own types, so that no HTTP framework's types leak into the plugin API.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Static, TSchema } from '@sinclair/typebox';
import type { JsonSchema } from '../validation/json-schema.js';

/** The signed-in user a request runs for. */
export type { AuthenticatedUser } from '../auth/user-schemas.js';
import type { AuthenticatedUser } from '../auth/user-schemas.js';

/**
 * What a route's validated inputs hold, Fastify-style: `route<{ Body: NewNote; Querystring:
 * { limit: number }; Params: { id: string } }>(...)`. Each member is optional; an omitted one has
 * its default type (`unknown` body, `Record<string, unknown>` query, `Record<string, string>` params).
 * The types state what the spec's `body` and `query` schemas admit; the kernel enforces the schemas.
 */
export interface RouteGeneric {
  Body?: unknown;
  Querystring?: unknown;
  Params?: unknown;
}

type Member<G, K extends keyof RouteGeneric, Default> = G extends Record<K, infer T> ? T : Default;
/** The body type of a route generic. */
export type BodyOf<G extends RouteGeneric> = Member<G, 'Body', unknown>;
/** The query type of a route generic. */
export type QuerystringOf<G extends RouteGeneric> = Member<G, 'Querystring', Record<string, unknown>>;
/** The path parameter type of a route generic. */
export type ParamsOf<G extends RouteGeneric> = Member<G, 'Params', Record<string, string>>;

/** The request a route handler gets: inputs already authenticated, authorised and validated. */
export interface RouteRequest<G extends RouteGeneric = RouteGeneric> {
  /** Upper-case, e.g. `GET`. */
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  /** Path parameters by name (`/:id`). */
  readonly params: ParamsOf<G>;
  /** The query string validated against the route's `query` schema, values coerced, defaults applied. */
  readonly query: QuerystringOf<G>;
  /** The JSON body validated against the route's `body` schema (undefined without one). */
  readonly body: BodyOf<G>;
  /** The signed-in user; undefined only on `public` routes. */
  readonly user: AuthenticatedUser | undefined;
  /** The request id (echoed as `X-Request-Id`), for log lines. */
  readonly requestId: string;
  /** The client's address. */
  readonly ip: string;
  /** A request header by name (case-insensitive); `''` when absent. */
  header(name: string): string;
  /** The Node.js request, for what this interface does not cover. */
  readonly raw: IncomingMessage;
}

/** How a handler shapes its response; the handler's return value is the body. */
export interface RouteReply {
  /** Sets the status code (default 200; 204 when the handler returns nothing). */
  status(code: number): this;
  /** Sets a response header. */
  header(name: string, value: string): this;
  /** Sets the content type of a Buffer or stream body (JSON bodies are `application/json`). */
  type(contentType: string): this;
  /**
   * Takes the response over: the kernel writes nothing more, and the handler writes the body to
   * the returned response itself (status and headers set so far are already on it).
   */
  hijack(): ServerResponse;
}

/**
 * A route handler. It returns the body: a JSON value, or a Buffer or readable stream sent as it is
 * (see {@link RouteReply.type}); `undefined` answers 204 unless a status was set. Throwing an
 * `HttpError` (or any error with `status`, `code`, `expose`) answers problem+json.
 */
export type RouteHandler<G extends RouteGeneric = RouteGeneric> = (request: RouteRequest<G>, reply: RouteReply) => unknown;

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** One documented response of a route. */
export interface RouteResponse {
  description: string;
  /** JSON Schema of the body, or a `$ref` to a schema added with `openapi.addSchema`. */
  schema?: JsonSchema;
  /** Defaults to application/json (application/problem+json for status >= 400). */
  contentType?: string;
  /** Response headers; cross-origin front ends may read every header a route documents here. */
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

/**
 * A route declared through `ctx.http.route`. The kernel authenticates the caller, checks
 * `permission`, validates `body` and `query` with ajv, and documents the route in OpenAPI.
 */
export interface RouteSpec<G extends RouteGeneric = RouteGeneric> {
  method: HttpMethod;
  /** Path relative to the plugin's prefix, with `:name` parameters (`/:id`). */
  path: string;
  summary: string;
  description?: string;
  tags?: string[];
  /** The permission the caller needs. `'authenticated'`: any signed-in user. `'public'`: no token. */
  permission: string;
  /** JSON Schema of the request body. Unknown properties should be refused (`additionalProperties: false`). */
  body?: JsonSchema;
  /** JSON Schema of the query string (an object schema; values are coerced to the declared types). */
  query?: JsonSchema;
  /** Descriptions of path parameters, by name. */
  params?: Record<string, ParamDeclaration>;
  responses: Record<number, RouteResponse>;
  /** Method syntax on purpose: the kernel keeps routes of every input type in one table. */
  handler(request: RouteRequest<G>, reply: RouteReply): unknown;
}

/** The description of one path parameter (`/:id`); its value is always a string. */
export interface ParamDeclaration {
  description: string;
  schema?: JsonSchema;
}

/**
 * The inputs a route's own declarations admit: `Body` and `Querystring` are the static types of its
 * TypeBox `body` and `query` schemas, `Params` has one string per declared path parameter. No
 * `body` schema: the body is `undefined`; no `query` schema: the raw query; no `params`: any name.
 */
export interface SchemaGeneric<B extends TSchema | undefined, Q extends TSchema | undefined, P extends Record<string, ParamDeclaration>> {
  Body: B extends TSchema ? Static<B> : undefined;
  Querystring: Q extends TSchema ? Static<Q> : Record<string, unknown>;
  Params: { readonly [K in keyof P]: string };
}

/**
 * A route whose `body` and `query` are TypeBox schemas: the handler's request is typed from them
 * (see {@link SchemaGeneric}), so the schema the kernel validates with and the type the handler
 * reads cannot drift. `ctx.http.route` picks this form by itself when the schemas are TypeBox's.
 */
export interface SchemaRouteSpec<B extends TSchema | undefined, Q extends TSchema | undefined, P extends Record<string, ParamDeclaration>>
  extends Omit<RouteSpec<SchemaGeneric<B, Q, P>>, 'body' | 'query' | 'params'> {
  body?: B;
  query?: Q;
  params?: P;
}

/** The request a mounted handler gets: raw query values, no body parsed, no user resolved. */
export type MountRequest = RouteRequest<{ Body: undefined; Querystring: Record<string, string | string[] | undefined>; Params: Record<string, never> }>;

/**
 * Handles the requests under a mounted path prefix, before routing: returns the body to answer
 * (as a route handler does) or `undefined` to pass the request on. It authenticates by itself.
 */
export type MountHandler = (request: MountRequest, reply: RouteReply) => unknown;

/** What cross-origin front ends need beyond what the routes tell (their paths and documented headers). */
export interface CorsRegistration {
  /** Request headers a front end may send to this plugin, e.g. `X-SignalR-User-Agent`. */
  allowHeaders?: string[];
  /** Response headers a front end may read that no route documents. */
  exposeHeaders?: string[];
}
