import type { MountHandler, PluginAuth } from '../../core/plugin-api.js';
import { bearerToken } from './bearer.js';
import type { ConnectionRegistry } from './connection-registry.js';
import { HubErrors } from './errors.js';

export type { NegotiateResponse } from './negotiate-schema.js';
import type { NegotiateResponse } from './negotiate-schema.js';

/**
 * The handler mounted at `/scanHub`: `POST /scanHub/negotiate` reserves a connection for the
 * signed-in caller (401 without a valid token); a plain request to `/scanHub` is told to use a WebSocket.
 */
export function negotiateHandler(registry: ConnectionRegistry, auth: PluginAuth, hubPath: string): MountHandler {
  return async (req, reply): Promise<NegotiateResponse | undefined> => {
    if (req.path === hubPath || req.path === `${hubPath}/`) throw HubErrors.webSocketRequired();
    if (req.path !== `${hubPath}/negotiate`) return undefined;
    if (req.method !== 'POST') throw HubErrors.methodNotAllowed();
    const query = new URL(req.raw.url ?? '/', 'http://hub.invalid').searchParams;
    const bearer = bearerToken(req.raw.headers, query);
    const user = bearer ? await auth.verifyToken(bearer) : null;
    if (!user) throw HubErrors.unauthorized();
    const { connectionId, connectionToken } = registry.negotiate(user);
    const requested = Number(query.get('negotiateVersion') ?? 0);
    const body: NegotiateResponse =
      requested >= 1
        ? { connectionId, connectionToken, negotiateVersion: 1, availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text'] }] }
        : { connectionId: connectionToken, negotiateVersion: 0, availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text'] }] };
    reply.header('Cache-Control', 'no-store');
    return body;
  };
}
