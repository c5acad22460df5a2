/**
 * Start-up phases `ready` and `listen`: once every plugin registered, one router with validation
 * and authorisation for every route, CORS from what the plugins registered, the OpenAPI document;
 * then the main listener with the upgrade paths plugins claimed.
 */
import type { IncomingMessage, RequestListener } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import type { GatewayState } from '../http/route-table.js';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { AuthService } from '../auth/auth-service.js';
import type { KernelParts } from '../plugins/plugin-context.js';
import { buildOpenApiDocument } from '../openapi/openapi-builder.js';
import { createApp } from '../http/app.js';
import { startListener, type Listener } from '../http/listener.js';
import { RouteValidators } from '../http/route-validators.js';
import { PACKAGE_VERSION } from '../assets/package-root.js';

/** Schema checks a test asks of its gateway (StartOptions). */
export interface SchemaChecks {
  /** Compile every route's validators at start instead of on first use, so that one that does not compile stops the start. */
  checkSchemas?: boolean;
}

function bearerToken(authorization: string): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}

/** Phase `ready`: the HTTP application over every registered route and mount. */
export function buildHttpApp(config: GatewayConfig, parts: KernelParts, auth: AuthService, checks: SchemaChecks = {}): Koa<GatewayState> {
  const { routes, schemas, tags } = parts;
  const validators = new RouteValidators(schemas);
  const router = routes.buildRouter(validators, async (ctx) => {
    const token = bearerToken(ctx.get('Authorization'));
    return token ? auth.verifyToken(token) : null;
  });
  if (checks.checkSchemas) validators.compileAll();
  let openApi: Record<string, unknown> | undefined;
  return createApp({
    logger: parts.logger,
    router,
    mounts: parts.mounts,
    cors: {
      origins: config.cors.origins,
      maxAgeSeconds: config.cors.maxAgeSeconds ?? 600,
      paths: [...parts.cors.paths],
      allowHeaders: parts.cors.allowHeaders,
      exposeHeaders: [...routes.documentedHeaders(), ...parts.cors.exposeHeaders],
    },
    bodyLimitBytes: config.server.bodyLimitBytes,
    requestCompleted: (event) => parts.events.publish('HttpRequestCompleted', event),
    openApiDocument: () =>
      (openApi ??= buildOpenApiDocument({
        title: 'amt-gateway',
        version: PACKAGE_VERSION,
        description: 'Discovers, tracks and manages Intel AMT devices. Every route but login and health needs a bearer token from POST /api/auth/login.',
        routes: routes.list(),
        components: schemas.components(),
        tags: [...tags].map(([name, description]) => ({ name, description })),
      })),
  });
}

/** Phase `listen`: the main listener, with the upgrade paths plugins claimed. */
export async function listenMain(config: GatewayConfig, handler: RequestListener, upgrades: KernelParts['upgrades']): Promise<Listener> {
  const main = await startListener(handler, config.server.host, config.server.port, config.server.tls);
  main.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const claimed = upgrades.get(path);
    if (claimed) return claimed.handler(req, socket, head);
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  return main;
}
