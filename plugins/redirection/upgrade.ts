/**
 * The relay's WebSocket upgrade: the page's Origin must be the gateway's own or a configured one (no
 * cross-site WebSocket hijacking; clients that send no Origin are not browsers and rely on the
 * ticket alone), then the ticket admits it. The gateway's own origin is `server.publicOrigins` when
 * the site configures it; only without it does the Host header stand in, which a DNS-rebinding page
 * controls. A refusal is a plain HTTP problem response.
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { isHttpError, type HttpErrorShape, type Logger, type UpgradeHandler } from '../../core/plugin-api.js';
import { RedirectionErrors } from './errors.js';
import type { SessionService, Viewer } from './session-service.js';

function refuse(socket: Duplex, error: HttpErrorShape): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ type: `urn:amt-gateway:problem:${error.code}`, title: STATUS_CODES[error.status], status: error.status, detail: error.message });
  const headers = { Connection: 'close', 'Content-Type': 'application/problem+json', 'Content-Length': String(Buffer.byteLength(body)), ...error.headers };
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`);
}

/**
 * One of `origins` (the plugin's, and the gateway's public origins); with no public origins
 * configured, also the same origin by Host (the host the request says it came to).
 */
export function originAllowed(req: IncomingMessage, origins: readonly string[], publicOrigins: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (origins.includes(origin) || publicOrigins.includes(origin)) return true;
  if (publicOrigins.length > 0) return false;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

export function createRelayUpgrade(sessions: SessionService, wss: WebSocketServer, origins: { plugin: readonly string[]; public: readonly string[] }, logger: Logger): UpgradeHandler {
  return (req, socket, head) => {
    socket.on('error', () => undefined);
    void (async () => {
      if (!originAllowed(req, origins.plugin, origins.public)) throw RedirectionErrors.originRefused();
      const ticket = new URL(req.url ?? '/', 'http://relay.invalid').searchParams.get('ticket') ?? '';
      await sessions.connect(ticket, req.socket.remoteAddress ?? '', () => {
        if (socket.destroyed) return Promise.reject(new Error('the viewer left before the session opened'));
        return new Promise<Viewer>((resolve) => wss.handleUpgrade(req, socket, head, (ws) => resolve({ ws, socket })));
      });
    })().catch((err: unknown) => {
      if (isHttpError(err)) return refuse(socket, err);
      // Never the error's text: it could hold what the device sent.
      logger.warn('remote console session could not start', { error: err instanceof Error ? err.name : typeof err });
      socket.destroy();
    });
  };
}
