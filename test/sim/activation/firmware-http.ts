/**
 * The firmware's HTTP face, the same on its local management port (where the agent's LMS requests
 * land) and inside its CIRA channels: Digest for every request (401s with a challenge, `Connection:
 * close` and AMT's page), the machine's answer delay, then WS-Management.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serverHeader } from '../sim-http.js';
import type { FirmwareState } from './firmware-state.js';
import { handleFirmwareWsman } from './firmware-wsman.js';

const MAX_REQUEST_BYTES = 256 * 1024;
const UNAUTHORIZED_PAGE = '<html><head><title>Intel&reg; Active Management Technology</title></head><body><h2>Log on failed. Incorrect user name or password, or user account temporarily locked.</h2></body></html>\n';

export function firmwareRequestHandler(fw: FirmwareState): (req: IncomingMessage, res: ServerResponse) => void {
  const answer = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    res.setHeader('Server', serverHeader(fw.device));
    if (req.method !== 'POST' || (req.url ?? '') !== '/wsman') {
      res.writeHead(404, { 'Content-Length': 0 });
      res.end();
      return;
    }
    const { verdict, username } = fw.digest.verify(req.headers['authorization'], 'POST', req.url ?? '');
    if (verdict !== 'ok' || !username) {
      res.writeHead(401, { 'WWW-Authenticate': fw.digest.challenge(verdict === 'stale'), 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(UNAUTHORIZED_PAGE), Connection: 'close' });
      res.end(UNAUTHORIZED_PAGE);
      return;
    }
    const reply = handleFirmwareWsman(fw, body.toString('utf8'), username);
    if (reply.call === 'IPS_HostBasedSetupService.AdminSetup' && reply.ok && fw.options.dropAfterAdminSetup) {
      req.socket.destroy();
      return;
    }
    res.writeHead(reply.status, { 'Content-Type': 'application/soap+xml; charset=UTF-8', 'Content-Length': Buffer.byteLength(reply.body) });
    res.end(reply.body);
  };
  return (req, res) => {
    void readBody(req).then((body) => {
      if (!body) {
        res.writeHead(413, { 'Content-Length': 0, Connection: 'close' });
        res.end();
        return;
      }
      const delay = fw.options.responseDelayMs;
      if (delay <= 0) return answer(req, res, body);
      const timer = setTimeout(() => answer(req, res, body), delay);
      res.once('close', () => clearTimeout(timer));
    }, () => res.destroy());
  };
}

/** The request's body, or null past the bound (the rest is read and dropped). */
async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
  }
  return size > MAX_REQUEST_BYTES ? null : Buffer.concat(chunks);
}
