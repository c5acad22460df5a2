import type { ServerResponse } from 'node:http';
import type { SoapFault } from './errors.js';

/** The SOAP 1.1 envelope namespace. */
export const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
/** Namespace of the gateway's own fault detail (the error code). */
export const GATEWAY_ERROR_NS = 'urn:amt-gateway:soap-mps:errors';
export const XML_CONTENT_TYPE = 'text/xml; charset=utf-8';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for XML character data and attribute values; drops characters XML 1.0 forbids. */
export function escapeXml(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A SOAP 1.1 envelope around `body` (already serialized XML, may be empty). */
export function soapEnvelope(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<soap:Envelope xmlns:soap="${SOAP11_NS}">${body ? `<soap:Body>${body}</soap:Body>` : '<soap:Body/>'}</soap:Envelope>`;
}

/** The SOAP 1.1 Fault envelope for `fault`: `soap:<faultCode>`, its message, the error code as detail. */
export function faultEnvelope(fault: SoapFault): string {
  return soapEnvelope(
    `<soap:Fault><faultcode>soap:${fault.faultCode}</faultcode><faultstring>${escapeXml(fault.message)}</faultstring>` +
      `<detail><gw:code xmlns:gw="${GATEWAY_ERROR_NS}">${fault.code}</gw:code></detail></soap:Fault>`,
  );
}

/** Answers with `fault` as HTTP 500 and a SOAP Fault; closes the connection when the fault asks for it. */
export function writeFault(res: ServerResponse, fault: SoapFault): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = faultEnvelope(fault);
  res.statusCode = 500;
  res.setHeader('Content-Type', XML_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  if (fault.closeConnection) res.setHeader('Connection', 'close');
  res.end(body);
}

/** Answers 200 with a SOAP envelope. */
export function writeXml(res: ServerResponse, xml: string): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', XML_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(xml));
  res.end(xml);
}
