import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { HttpError, type Logger, type PluginAuth, type UpgradeHandler } from '../../core/plugin-api.js';
import { bearerToken } from './bearer.js';
import type { ConnectionRegistry } from './connection-registry.js';
import { HubErrors } from './errors.js';

/** Answers a refused upgrade with a plain HTTP response and closes the socket (no WebSocket is opened). */
function refuse(socket: Duplex, error: HttpError): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ type: `urn:amt-gateway:problem:${error.code}`, title: STATUS_CODES[error.status], status: error.status, detail: error.message });
  const headers = {
    Connection: 'close',
    'Content-Type': 'application/problem+json',
    'Content-Length': String(Buffer.byteLength(body)),
    ...error.headers,
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${head}\r\n${body}`);
}

export interface UpgradeDeps {
  registry: ConnectionRegistry;
  auth: PluginAuth;
  wss: WebSocketServer;
  logger: Logger;
}

/**
 * The `/scanHub` upgrade: checks the bearer token (401), admits the socket for its negotiated id
 * (404 unknown, 409 already open) or as a connection of its own without one, then runs the hub on it.
 */
export function createUpgradeHandler(deps: UpgradeDeps): UpgradeHandler {
  const { registry, auth, wss, logger } = deps;
  return (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const ignore = () => undefined;
    socket.on('error', ignore);
    void (async () => {
      const query = new URL(req.url ?? '/', 'http://hub.invalid').searchParams;
      const bearer = bearerToken(req.headers, query);
      if (registry.isClosing) return refuse(socket, HubErrors.unavailable());
      const user = bearer ? await auth.verifyToken(bearer) : null;
      if (!user || !bearer) return refuse(socket, HubErrors.unauthorized());
      if (socket.destroyed) return;
      const claim = registry.claim(query.get('id'), user);
      socket.once('close', () => registry.release(claim));
      socket.off('error', ignore);
      wss.handleUpgrade(req, socket, head, (ws) => registry.open(ws, claim, user, bearer));
    })().catch((err: unknown) => {
      if (err instanceof HttpError) return refuse(socket, err);
      logger.error('hub upgrade failed', { error: err instanceof Error ? err.message : String(err) });
      refuse(socket, HubErrors.unavailable());
    });
  };
}
