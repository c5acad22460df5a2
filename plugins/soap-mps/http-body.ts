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

  const body = await readBounded(req, maxBytes);
  try {
    return utf8.decode(body);
  } catch {
    throw new SoapFault('GW_ERR_SOAP_CONTENT', 'request body is not valid UTF-8');
  }
}

function tooLarge(maxBytes: number): SoapFault {
  return new SoapFault('GW_ERR_SOAP_BODY_TOO_LARGE', `request body exceeds ${maxBytes} bytes`, { closeConnection: true });
}

/**
 * The body's bytes, with stream events rather than an async iterator (which cost more than reading
 * a small body). Past `maxBytes` it stops reading but keeps the socket: the fault is still to be
 * sent (with Connection: close).
 */
function readBounded(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (req.destroyed) return reject(new Error('the request closed before its body ended'));
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      stop();
      req.pause();
      reject(tooLarge(maxBytes));
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      stop();
      reject(err);
    };
    const onClose = () => onError(new Error('the request closed before its body ended'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
