import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { answerClientError, MAX_HEADER_BYTES } from './client-error.js';

export interface TlsFiles {
  cert?: string | null;
  key?: string | null;
}

/** An HTTP or HTTPS listener, with a graceful close. */
export interface Listener {
  readonly server: Server;
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish within `timeoutMs`, then cuts the rest. */
  close(timeoutMs: number): Promise<void>;
}

/** Starts a listener; serves HTTPS when `tls` names a certificate and key (the kernel's one TLS helper). */
export async function startListener(handler: RequestListener, host: string, port: number, tls: TlsFiles = {}): Promise<Listener> {
  const secure = Boolean(tls.cert && tls.key);
  const server: Server = secure
    ? (createHttpsServer({ cert: readFileSync(tls.cert!), key: readFileSync(tls.key!), maxHeaderSize: MAX_HEADER_BYTES }, handler) as unknown as Server)
    : createHttpServer({ maxHeaderSize: MAX_HEADER_BYTES }, handler);
  server.on('clientError', answerClientError);
  // Every raw socket, upgraded ones included: server.close() waits for those, and
  // closeAllConnections() does not reach WebSockets.
  const sockets = new Set<Socket>();
  server.on(secure ? 'secureConnection' : 'connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 120_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `${secure ? 'https' : 'http'}://${hostPart}:${address.port}`,
    close(timeoutMs) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          for (const socket of sockets) socket.destroy();
        }, timeoutMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
