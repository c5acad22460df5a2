import Koa from 'koa';
import { koaBody } from 'koa-body';
import { koaSwagger } from 'koa2-swagger-ui';
import type Router from '@koa/router';
import type { GatewayState } from '../plugin-api.js';
import type { Logger } from '../log/logger.js';
import type { RawMiddleware } from '../plugins/plugin-context.js';
import { corsMiddleware } from './cors.js';
import { HttpError } from './http-error.js';
import { problemMiddleware } from './problem.js';
import { requestLogMiddleware } from './request-log.js';
import { watchUtf8Body } from './utf8-body-guard.js';
import { SWAGGER_ASSET_BASE, SWAGGER_ASSET_VERSION, swaggerAssets } from './swagger-assets.js';

export interface AppOptions {
  logger: Logger;
  router: Router<GatewayState>;
  mounts: Array<{ prefix: string; middleware: RawMiddleware }>;
  corsOrigins: string[];
  corsMaxAgeSeconds: number;
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
  app.use(corsMiddleware({ origins: options.corsOrigins, maxAgeSeconds: options.corsMaxAgeSeconds, paths: ['/api', '/scanHub'] }));
  for (const { prefix, middleware } of options.mounts) {
    app.use((ctx, next) => (underPrefix(ctx.path, prefix) ? middleware(ctx, next) : next()));
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
  app.use((ctx, next) => {
    if (!underPrefix(ctx.path, '/api')) return next();
    const validUtf8 = watchUtf8Body(ctx.req);
    return parseBody(ctx, () => {
      if (!validUtf8()) throw new HttpError(400, 'GW_ERR_INVALID_UTF8', 'the request body is not valid UTF-8');
      return next();
    });
  });
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
