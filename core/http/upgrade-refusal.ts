/** A refused WebSocket upgrade answered as a plain HTTP problem (no WebSocket is opened), then the socket closed. */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HttpErrorShape } from './http-error.js';
import { PROBLEM_TYPE_BASE } from './problem.js';

export function refuseUpgrade(socket: Duplex, error: HttpErrorShape): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ type: PROBLEM_TYPE_BASE + error.code, title: STATUS_CODES[error.status], status: error.status, detail: error.message });
  const headers = { Connection: 'close', 'Content-Type': 'application/problem+json', 'Content-Length': String(Buffer.byteLength(body)), ...error.headers };
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body}`);
}
