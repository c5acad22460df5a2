import type { ParameterizedContext } from 'koa';
import type { GatewayState, PluginAuth } from '../../core/plugin-api.js';
import { bearerToken } from './bearer.js';
import type { ConnectionRegistry } from './connection-registry.js';
import { HubErrors } from './errors.js';

/** The body of a negotiate answer (SignalR negotiate protocol, versions 0 and 1). */
export interface NegotiateResponse {
  connectionId: string;
  /** Version 1 only: the id the client presents at the upgrade (the connection id stays private to logs). */
  connectionToken?: string;
  negotiateVersion: number;
  availableTransports: Array<{ transport: 'WebSockets'; transferFormats: ['Text'] }>;
}

/**
 * The raw middleware mounted at `/scanHub`: `POST /scanHub/negotiate` reserves a connection for the
 * signed-in caller (401 without a valid token); a plain request to `/scanHub` is told to use a WebSocket.
 */
export function negotiateMiddleware(registry: ConnectionRegistry, auth: PluginAuth, hubPath: string) {
  return async (ctx: ParameterizedContext<GatewayState>, next: () => Promise<void>): Promise<void> => {
    if (ctx.path === hubPath || ctx.path === `${hubPath}/`) throw HubErrors.webSocketRequired();
    if (ctx.path !== `${hubPath}/negotiate`) return next();
    if (ctx.method !== 'POST') throw HubErrors.methodNotAllowed();
    const bearer = bearerToken(ctx.req.headers, new URLSearchParams(ctx.querystring));
    const user = bearer ? await auth.verifyToken(bearer) : null;
    if (!user) throw HubErrors.unauthorized();
    const { connectionId, connectionToken } = registry.negotiate(user);
    const requested = Number(ctx.query.negotiateVersion ?? 0);
    const body: NegotiateResponse =
      requested >= 1
        ? { connectionId, connectionToken, negotiateVersion: 1, availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text'] }] }
        : { connectionId: connectionToken, negotiateVersion: 0, availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text'] }] };
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  };
}
