/**
 * Answers what node's HTTP parser refuses before any handler runs (headers or a request line too
 * large, malformed HTTP) with problem+json instead of node's bare status line.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_TYPE_BASE } from './problem.js';

/** node's default `maxHeaderSize`: the request line and headers together. */
export const MAX_HEADER_BYTES = 16 * 1024;

function problemFor(code: string | undefined): { status: number; code: string; detail: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, code: 'GW_ERR_HEADERS_TOO_LARGE', detail: `the request line and headers exceed ${MAX_HEADER_BYTES} bytes (a long query string counts)` };
    case 'HPE_REQUEST_TIMEOUT':
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, code: 'GW_ERR_REQUEST_TIMEOUT', detail: 'the request was not received in time' };
    default:
      return { status: 400, code: 'GW_ERR_BAD_HTTP', detail: 'the request is not valid HTTP' };
  }
}

/** A `clientError` listener for an HTTP(S) server. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    // The peer is gone, or a response is already under way on this socket: nothing sensible to add.
    socket.destroy();
    return;
  }
  const problem = problemFor(error.code);
  const body = JSON.stringify({
    type: PROBLEM_TYPE_BASE + problem.code,
    title: STATUS_CODES[problem.status],
    status: problem.status,
    detail: problem.detail,
  });
  socket.end(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
