/**
 * The HTTP face of a simulated device on 16992/16993: `GET /` redirects to the logon page, `POST /wsman`
 * needs Digest (401s come with `Connection: close` and an HTML body, like AMT's), and answers are
 * chunked with boundaries in the middle of elements.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DeviceState } from './device-state.js';
import { misbehave } from './sim-misbehaviour.js';
import { handleWsman } from './sim-wsman.js';

const MAX_REQUEST_BYTES = 256 * 1024;
const UNAUTHORIZED_HTML =
  '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" >\n<html><head><link rel=stylesheet href=/styles.css>\n' +
  '<meta http-equiv="Content-Type" content="text/html; charset=utf-8">\n<title>Intel&reg; Active Management Technology</title></head>\n' +
  '<body><table class=header><tr><td valign=top nowrap><p class=top1>Intel<font class=r><sup>&reg;</sup></font> Active Management Technology</td></tr></table>\n' +
  '<br><h2 class=warn>Log on failed. Incorrect user name or password, or user account temporarily locked.</h2>\n</body></html>\n';

export function serverHeader(state: DeviceState): string {
  return `Intel(R) Active Management Technology ${state.config.firmwareVersion}`;
}

const CRLF = Buffer.from('\r\n', 'latin1');
const LAST_CHUNK = Buffer.from('0\r\n\r\n', 'latin1');

/**
 * Sends a body as many small chunks, so chunk boundaries fall mid-element, like AMT's own HTTP stack.
 * The chunked framing is written here and Node's switched off after the header (which still says
 * `Transfer-Encoding: chunked`): Node's own framing depends on its version (from Node 22 a corked
 * response ended after its first chunk; Node 24 corks every response itself and joins the writes of a
 * tick into one chunk), so the body leaves as one write whose framing no Node version rewrites.
 */
function sendChunked(res: ServerResponse, status: number, body: string, chunkSize: number): void {
  res.writeHead(status, { 'Content-Type': 'application/soap+xml; charset=UTF-8' });
  res.chunkedEncoding = false;
  const bytes = Buffer.from(body, 'utf8');
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunkSize) {
    const piece = bytes.subarray(i, i + chunkSize);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`, 'latin1'), piece, CRLF);
  }
  parts.push(LAST_CHUNK);
  res.end(Buffer.concat(parts));
}

/** The page a locked-out device answers signed requests with: it names the lock, not the credentials. */
const LOCKED_HTML = UNAUTHORIZED_HTML.replace(
  'Log on failed. Incorrect user name or password, or user account temporarily locked.',
  'Log on failed. User account temporarily locked after repeated failed log on attempts.',
);
const NOT_SOAP_HTML = '<html><head><title>Intel&reg; Active Management Technology</title></head><body><p>Welcome</p></body></html>\n';

function sendUnauthorized(state: DeviceState, res: ServerResponse, stale: boolean, locked = false): void {
  state.counters.unauthorized++;
  const page = locked ? LOCKED_HTML : UNAUTHORIZED_HTML;
  res.writeHead(401, {
    'WWW-Authenticate': state.digest.challenge(stale),
    'Content-Type': 'text/html',
    'Content-Length': Buffer.byteLength(page),
    Connection: 'close',
  });
  res.end(page);
}

/** The request listener of one device (shared by its HTTP and TLS servers), answering after the device's response delay. */
export function deviceRequestHandler(state: DeviceState): (req: IncomingMessage, res: ServerResponse) => void {
  const answer = answerRequest(state);
  const delayMs = state.config.responseDelayMs;
  if (delayMs <= 0) return answer;
  return (req, res) => {
    // The body is buffered meanwhile (the stream stays paused until read).
    const timer = setTimeout(() => answer(req, res), delayMs);
    res.once('close', () => clearTimeout(timer));
  };
}

function answerRequest(state: DeviceState): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    state.counters.requests++;
    res.setHeader('Server', serverHeader(state));
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/') {
      req.resume();
      res.writeHead(303, { Location: '/logon.htm', 'Content-Length': 0 });
      res.end();
      return;
    }
    if (path !== '/wsman' || req.method !== 'POST') {
      req.resume();
      res.writeHead(path === '/wsman' ? 405 : 404, { 'Content-Type': 'text/html', 'Content-Length': 0 });
      res.end();
      return;
    }
    if (misbehave(state.misbehaviour, req, res)) return;
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_REQUEST_BYTES) {
        res.writeHead(413, { 'Content-Length': 0, Connection: 'close' });
        res.end();
        return;
      }
      const authorization = req.headers['authorization'];
      if (authorization) state.counters.authAttempts++;
      const verdict = state.misbehaviour === 'no-auth' ? 'ok' : state.misbehaviour === 'refuse-all' ? 'missing' : state.digest.verify(authorization, 'POST', req.url ?? '');
      if (verdict !== 'ok') {
        sendUnauthorized(state, res, verdict === 'stale', verdict === 'locked');
        return;
      }
      if (state.misbehaviour === 'not-soap') {
        res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(NOT_SOAP_HTML) });
        res.end(NOT_SOAP_HTML);
        return;
      }
      const reply = handleWsman(state, Buffer.concat(chunks).toString('utf8'));
      sendChunked(res, reply.status, reply.body, state.config.chunkSize);
    });
  };
}
