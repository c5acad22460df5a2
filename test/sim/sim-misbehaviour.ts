/**
 * Ways a device can misbehave on request, for tests of the gateway's bounds: never answer, answer
 * with bytes that are not HTTP, send a body far larger than any limit, or a chunked body that never ends.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Misbehaviour } from './fleet-options.js';

const OVERSIZED_BYTES = 64 * 1024 * 1024;
const FILLER = `<h:Pad>${'x'.repeat(16 * 1024 - 15)}</h:Pad>`;
const HEAD = '<?xml version="1.0" encoding="UTF-8"?><a:Envelope xmlns:a="http://www.w3.org/2003/05/soap-envelope"><a:Body><g:PullResponse><g:Items>';

/** Acts out a misbehaviour on a request; `false` when there is none to act out. */
export function misbehave(kind: Misbehaviour, req: IncomingMessage, res: ServerResponse): boolean {
  switch (kind) {
    case 'stall':
      // Hold the request open and say nothing; the server's stop() destroys the socket.
      req.resume();
      return true;
    case 'garbage':
      req.resume();
      req.socket.end(Buffer.from('\x00\x13\x37 this is not HTTP \xff\xfe\r\n\r\n<<<>>>\r\n', 'latin1'));
      return true;
    case 'oversized':
      req.resume();
      streamOversized(res);
      return true;
    case 'endless-chunks':
      req.resume();
      streamEndless(res);
      return true;
    default:
      return false;
  }
}

function streamOversized(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/soap+xml; charset=UTF-8' });
  res.write(HEAD);
  let sent = 0;
  const pump = (): void => {
    while (sent < OVERSIZED_BYTES && !res.destroyed) {
      sent += FILLER.length;
      if (!res.write(FILLER)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end('</g:Items></g:PullResponse></a:Body></a:Envelope>');
  };
  pump();
}

function streamEndless(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/soap+xml; charset=UTF-8' });
  res.write(HEAD);
  let n = 0;
  const timer = setInterval(() => {
    if (res.destroyed) return clearInterval(timer);
    res.write(`<h:CIM_SoftwareIdentity><h:InstanceID>item ${n++}</h:InstanceID></h:CIM_SoftwareIdentity>`);
  }, 20);
  res.on('close', () => clearInterval(timer));
}
