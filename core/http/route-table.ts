import Router, { type RouterContext } from '@koa/router';
import type { Context } from 'koa';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { AuthenticatedUser, RouteSpec } from './route-api.js';
import type { DocumentedRoute } from '../openapi/openapi-builder.js';
import { applyResult, routeReply, routeRequest } from './route-adapter.js';
import type { RouteValidators } from './route-validators.js';
import { describeErrors } from '../validation/validator.js';
import { HttpError } from './http-error.js';

/** Resolves the caller of a request from its bearer token; null when there is none or it is invalid. */
export type Authenticator = (ctx: Context) => Promise<AuthenticatedUser | null>;

/** Koa state of a request: the id the request log gives it, the user the route table resolved. */
export interface GatewayState {
  requestId: string;
  user?: AuthenticatedUser;
  /** The prefix of the plugin mount that took the request, if one did. */
  mountPrefix?: string;
}

const PSEUDO_PERMISSIONS = new Set(['public', 'authenticated']);

function joinPath(prefix: string, path: string): string {
  const joined = (prefix.replace(/\/+$/, '') + '/' + path.replace(/^\/+/, '')).replace(/\/+$/, '');
  return joined === '' ? '/' : joined;
}

/** Every JSON route of every plugin: one router, one authorization and validation path. */
export class RouteTable {
  private readonly routes: DocumentedRoute[] = [];
  private readonly keys = new Map<string, string>();

  add(plugin: string, prefix: string, spec: RouteSpec): void {
    const path = joinPath(prefix, spec.path);
    const key = `${spec.method.toUpperCase()} ${path.replace(/:[A-Za-z0-9_]+/g, ':')}`;
    const owner = this.keys.get(key);
    if (owner) throw new Error(`route ${spec.method.toUpperCase()} ${path} of plugin '${plugin}' clashes with plugin '${owner}'`);
    this.keys.set(key, plugin);
    this.routes.push({ plugin, method: spec.method, path, spec });
  }

  /** Every response header some route documents (a cross-origin front end may read them). */
  documentedHeaders(): string[] {
    const names = new Set<string>();
    for (const { spec } of this.routes) for (const response of Object.values(spec.responses)) for (const name of Object.keys(response.headers ?? {})) names.add(name);
    return [...names];
  }

  list(): DocumentedRoute[] {
    return [...this.routes];
  }

  /** Checks that every route names a permission that exists. */
  checkPermissions(known: string[]): void {
    for (const { plugin, method, path, spec } of this.routes) {
      if (!PSEUDO_PERMISSIONS.has(spec.permission) && !known.includes(spec.permission)) {
        throw new Error(`route ${method.toUpperCase()} ${path} of plugin '${plugin}' requires unknown permission '${spec.permission}'`);
      }
    }
  }

  buildRouter(validators: RouteValidators, authenticate: Authenticator): Router<GatewayState> {
    const router = new Router<GatewayState>();
    for (const { method, path, spec } of this.routes) {
      const body = spec.body ? validators.body(spec.body) : undefined;
      const query = spec.query ? validators.query(spec.query) : undefined;
      router.register(path, [method.toUpperCase()], async (ctx: RouterContext<GatewayState>) => {
        let user: AuthenticatedUser | undefined;
        if (spec.permission !== 'public') {
          user = (await authenticate(ctx)) ?? undefined;
          if (!user) throw new HttpError(401, 'GW_ERR_UNAUTHENTICATED', 'a valid bearer token is required', { headers: { 'WWW-Authenticate': 'Bearer' } });
          ctx.state.user = user;
          if (spec.permission !== 'authenticated' && !user.permissions.includes(spec.permission)) {
            throw new HttpError(403, 'GW_ERR_FORBIDDEN', `this requires the permission '${spec.permission}'`);
          }
        }
        const validQuery = validateQuery(query?.(), ctx.query);
        if (body) validateBody(body(), ctx);
        const reply = routeReply(ctx);
        const result: unknown = await spec.handler(routeRequest(ctx, validQuery, body ? ctx.request.body : undefined, user), reply);
        if (!applyResult(ctx, reply, result)) ctx.status = 204;
      });
    }
    return router;
  }
}

function validateQuery(validate: ValidateFunction | undefined, raw: Record<string, string | string[] | undefined>): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...raw };
  if (validate && !validate(copy)) {
    throw new HttpError(400, 'GW_ERR_VALIDATION', 'the query string is invalid', { errors: describeErrors(validate.errors, 'query') });
  }
  return copy;
}

function validateBody(validate: ValidateFunction, ctx: Context): void {
  if (!ctx.is('application/json')) {
    throw new HttpError(415, 'GW_ERR_MEDIA_TYPE', 'the request body must be application/json');
  }
  if (!validate(ctx.request.body)) {
    throw new HttpError(400, 'GW_ERR_VALIDATION', 'the request body is invalid', { errors: describeErrors(validate.errors, 'body') });
  }
}
