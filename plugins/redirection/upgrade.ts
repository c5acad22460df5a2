/**
 * The relay's WebSocket upgrade: the page's Origin must be the gateway's own or a configured one (no
 * cross-site WebSocket hijacking; clients that send no Origin are not browsers and rely on the
 * ticket alone), then the ticket admits it. A refusal is a plain HTTP problem response.
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

/** Same-origin (the Origin names the host the request came to) or one of the configured origins. */
export function originAllowed(req: IncomingMessage, origins: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (origins.includes(origin)) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

export function createRelayUpgrade(sessions: SessionService, wss: WebSocketServer, origins: readonly string[], logger: Logger): UpgradeHandler {
  return (req, socket, head) => {
    socket.on('error', () => undefined);
    void (async () => {
      if (!originAllowed(req, origins)) throw RedirectionErrors.originRefused();
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
