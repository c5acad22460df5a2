import Koa from 'koa';
import { koaBody } from 'koa-body';
import { koaSwagger } from 'koa2-swagger-ui';
import type Router from '@koa/router';
import type { Logger } from '../log/logger.js';
import type { MountHandler } from './route-api.js';
import type { GatewayState } from './route-table.js';
import { corsMiddleware, type CorsPolicy } from './cors.js';
import { applyResult, routeReply, routeRequest } from './route-adapter.js';
import { HttpError } from './http-error.js';
import { problemMiddleware } from './problem.js';
import { requestLogMiddleware } from './request-log.js';
import { SWAGGER_ASSET_BASE, SWAGGER_ASSET_VERSION, swaggerAssets } from './swagger-assets.js';

export interface AppOptions {
  logger: Logger;
  router: Router<GatewayState>;
  mounts: Array<{ prefix: string; handler: MountHandler }>;
  cors: CorsPolicy;
  bodyLimitBytes: number;
  openApiDocument: () => Record<string, unknown>;
}

export const OPENAPI_PATH = '/swagger/openapi.json';

const underPrefix = (path: string, prefix: string) => path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : prefix + '/');

/** The Koa application: logging, problems, CORS, plugin mounts, body limits, routes, docs. */
export function createApp(options: AppOptions): Koa<GatewayState> {
  const app = new Koa<GatewayState>();
  app.silent = true;
  app.use(requestLogMiddleware(options.logger));
  app.use(problemMiddleware(options.logger));
  app.use(corsMiddleware(options.cors));
  for (const { prefix, handler } of options.mounts) {
    app.use(async (ctx, next) => {
      if (!underPrefix(ctx.path, prefix)) return next();
      const reply = routeReply(ctx);
      const result: unknown = await handler(routeRequest(ctx, ctx.query, undefined, undefined) as Parameters<MountHandler>[0], reply);
      if (!applyResult(ctx, reply, result)) return next();
    });
  }
  const parseBody = koaBody({
    json: true,
    jsonStrict: true,
    multipart: false,
    urlencoded: false,
    text: false,
    jsonLimit: options.bodyLimitBytes,
    onError(err) {
      const status = (err as { status?: number }).status;
      if (status === 413) throw new HttpError(413, 'GW_ERR_BODY_TOO_LARGE', `the request body exceeds ${options.bodyLimitBytes} bytes`);
      throw new HttpError(400, 'GW_ERR_MALFORMED_JSON', 'the request body is not valid JSON');
    },
  });
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
  app.use(
    koaSwagger({
      routePrefix: '/swagger',
      title: 'amt-gateway API',
      hideTopbar: true,
      swaggerCdnUrl: SWAGGER_ASSET_BASE,
      swaggerVersion: SWAGGER_ASSET_VERSION,
      swaggerOptions: { url: OPENAPI_PATH },
    }),
  );
  app.use(async (ctx) => {
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new HttpError(404, 'GW_ERR_NOT_FOUND', `no route ${ctx.method} ${ctx.path}`);
    }
  });
  return app;
}
