import Koa from 'koa';
import type Router from '@koa/router';
import type { Logger } from '../log/logger.js';
import type { MountHandler } from './route-api.js';
import type { HttpRequestCompletedEvent } from '../plugin-api.js';
import type { GatewayState } from './route-table.js';
import { corsMiddleware, type CorsPolicy } from './cors.js';
import { applyResult, routeReply, routeRequest } from './route-adapter.js';
import { HttpError } from './http-error.js';
import { jsonBody } from './json-body.js';
import { problemMiddleware } from './problem.js';
import { requestLogMiddleware } from './request-log.js';
import { securityHeadersMiddleware } from './security-headers.js';
import { SWAGGER_ASSET_BASE, SWAGGER_ASSET_VERSION, swaggerAssets } from './swagger-assets.js';

export interface AppOptions {
  logger: Logger;
  router: Router<GatewayState>;
  mounts: Array<{ prefix: string; handler: MountHandler }>;
  cors: CorsPolicy;
  bodyLimitBytes: number;
  openApiDocument: () => Record<string, unknown>;
  /** Told of every answered request (the kernel publishes it as `HttpRequestCompleted`). */
  requestCompleted?: (event: HttpRequestCompletedEvent) => void;
}

export const OPENAPI_PATH = '/swagger/openapi.json';

const underPrefix = (path: string, prefix: string) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : prefix + '/');

/** The Koa application: logging, security headers, problems, CORS, plugin mounts, body limits, routes, docs. */
export function createApp(options: AppOptions): Koa<GatewayState> {
  const app = new Koa<GatewayState>();
  app.silent = true;
  app.use(requestLogMiddleware(options.logger, options.requestCompleted));
  app.use(securityHeadersMiddleware());
  app.use(problemMiddleware(options.logger));
  app.use(corsMiddleware(options.cors));
  for (const { prefix, handler } of options.mounts) {
    app.use(async (ctx, next) => {
      if (!underPrefix(ctx.path, prefix)) return next();
      const reply = routeReply(ctx);
      const result: unknown = await handler(routeRequest(ctx, ctx.query, undefined, undefined) as Parameters<MountHandler>[0], reply);
      if (!applyResult(ctx, reply, result)) return next();
      ctx.state.mountPrefix = prefix;
    });
  }
  const parseBody = jsonBody(options.bodyLimitBytes);
  app.use((ctx, next) => (underPrefix(ctx.path, '/api') ? parseBody(ctx, next) : next()));
  app.use(options.router.routes());
  app.use(async (ctx, next) => {
    if (ctx.path === OPENAPI_PATH && ctx.method === 'GET') {
      ctx.body = options.openApiDocument();
      return;
    }
    return next();
  });
  app.use(swaggerAssets());
  app.use(swaggerPage());
  app.use(async (ctx) => {
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new HttpError(404, 'GW_ERR_NOT_FOUND', `no route ${ctx.method} ${ctx.path}`);
    }
  });
  return app;
}

const SWAGGER_PAGE = /\/swagger\/*$/i;

/**
 * The browsable docs page at /swagger (koa2-swagger-ui). Its module (handlebars, lodash) is
 * imported by the first request for the page: ~9 MiB an idle gateway need not hold.
 */
function swaggerPage(): Koa.Middleware<GatewayState> {
  let page: Promise<Koa.Middleware> | undefined;
  return async (ctx, next) => {
    // What koa2-swagger-ui itself answers: the page (its prefix, case-insensitive, trailing slashes) and its favicon.
    if (!SWAGGER_PAGE.test(ctx.path) && ctx.path !== '/favicon.png') return next();
    page ??= import('koa2-swagger-ui').then(({ koaSwagger }) =>
      koaSwagger({
        routePrefix: '/swagger',
        title: 'amt-gateway API',
        hideTopbar: true,
        swaggerCdnUrl: SWAGGER_ASSET_BASE,
        swaggerVersion: SWAGGER_ASSET_VERSION,
        swaggerOptions: { url: OPENAPI_PATH },
      }),
    );
    page.catch(() => (page = undefined));
    return (await page)(ctx, next);
  };
}
