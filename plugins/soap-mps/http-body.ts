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
  const tooLarge = () => new SoapFault('GW_ERR_SOAP_BODY_TOO_LARGE', `request body exceeds ${maxBytes} bytes`, { closeConnection: true });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();

  const chunks: Buffer[] = [];
  let size = 0;
  // destroyOnReturn false: the socket must outlive an early exit so that the fault can be sent.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  try {
    return utf8.decode(Buffer.concat(chunks, size));
  } catch {
    throw new SoapFault('GW_ERR_SOAP_CONTENT', 'request body is not valid UTF-8');
  }
}
