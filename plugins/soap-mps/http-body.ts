import type { IncomingMessage } from 'node:http';
import { SoapFault } from './errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Reads a SOAP request body as UTF-8 text, refusing more than `maxBytes` (by Content-Length up
 * front, else as soon as the stream passes the limit) and any content encoding.
 */
export async function readSoapBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const encoding = req.headers['content-encoding'];
  if (encoding && encoding.toLowerCase() !== 'identity') {
    throw new SoapFault('GW_ERR_SOAP_CONTENT', `Content-Encoding ${encoding.slice(0, 40)} is not supported`, { closeConnection: true });
  }
  const contentType = req.headers['content-type'];
  if (contentType && !/xml/i.test(contentType)) {
    throw new SoapFault('GW_ERR_SOAP_CONTENT', 'Content-Type must be text/xml', { closeConnection: true });
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);

  const body = await new Promise<Buffer>((resolve, reject) => {
    if (req.destroyed) return reject(new Error('the request closed before its body ended'));
    reading.set(req, { chunks: [], size: 0, maxBytes, resolve, reject });
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
  try {
    return utf8.decode(body);
  } catch {
    throw new SoapFault('GW_ERR_SOAP_CONTENT', 'request body is not valid UTF-8');
  }
}

function tooLarge(maxBytes: number): SoapFault {
  return new SoapFault('GW_ERR_SOAP_BODY_TOO_LARGE', `request body exceeds ${maxBytes} bytes`, { closeConnection: true });
}

// The body is read with plain stream events and module-level listeners: an async iterator, or
// closures made per request (which tsx names one by one), cost more than reading a small body.
interface Reading {
  chunks: Buffer[];
  size: number;
  maxBytes: number;
  resolve(body: Buffer): void;
  reject(err: unknown): void;
}
const reading = new WeakMap<IncomingMessage, Reading>();

function finish(req: IncomingMessage): Reading {
  const state = reading.get(req)!;
  reading.delete(req);
  req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
  return state;
}

function onData(this: IncomingMessage, chunk: Buffer): void {
  const state = reading.get(this)!;
  state.size += chunk.length;
  if (state.size <= state.maxBytes) {
    state.chunks.push(chunk);
    return;
  }
  // Stop reading but keep the socket: the fault is still to be sent (with Connection: close).
  finish(this).reject(tooLarge(state.maxBytes));
  this.pause();
}

function onEnd(this: IncomingMessage): void {
  const { chunks, size, resolve } = finish(this);
  resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
}

function onError(this: IncomingMessage, err: Error): void {
  finish(this).reject(err);
}

function onClose(this: IncomingMessage): void {
  finish(this).reject(new Error('the request closed before its body ended'));
}
