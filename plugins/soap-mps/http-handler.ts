import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../../core/plugin-api.js';
import type { ClientAuth } from './client-auth.js';
import { SoapFault } from './errors.js';
import { readSoapBody } from './http-body.js';
import type { SoapDispatcher } from './soap-dispatcher.js';
import { writeFault, writeXml } from './soap-envelope.js';
import { readSoapRequest } from './soap-request.js';
import { SERVICE_PATH } from './wsdl.js';
import type { SoapRequestCompletedEvent } from './api.js';

/** What the status of an answer says: a SOAP Fault is a 500 with a Fault body. */
function outcomeOf(status: number): SoapRequestCompletedEvent['outcome'] {
  if (status < 300) return 'ok';
  if (status === 500) return 'fault';
  return status === 401 || status === 429 ? 'refused' : 'error';
}

export interface SoapHandlerOptions {
  namespace: string;
  maxBodyBytes: number;
  auth: ClientAuth;
  dispatcher: SoapDispatcher;
  /** The WSDL to serve to this request. */
  wsdl: (req: IncomingMessage) => string;
  logger: Logger;
  /** Told of every answered request, for metrics. */
  completed?: (event: SoapRequestCompletedEvent) => void;
}

function plain(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(text);
}

interface RequestTarget {
  /** The path without trailing slashes. */
  path: string;
  /** The query names `wsdl` (any case). */
  wantsWsdl: boolean;
}

// Nearly every request names the service path exactly; only the others need the URL parser.
const EXACT_SERVICE_PATH: RequestTarget = { path: SERVICE_PATH, wantsWsdl: false };

function requestTarget(raw = '/'): RequestTarget | undefined {
  if (raw === SERVICE_PATH) return EXACT_SERVICE_PATH;
  if (!URL.canParse(raw, 'http://soap.invalid')) return undefined;
  const url = new URL(raw, 'http://soap.invalid');
  return { path: url.pathname.replace(/\/+$/, ''), wantsWsdl: [...url.searchParams.keys()].some((k) => k.toLowerCase() === 'wsdl') };
}

/**
 * The SOAP listener's request handler: `GET ?wsdl` serves the WSDL, `POST` runs an operation.
 * Every request is authenticated first (a refused caller gets 401 and nothing else); a POST body
 * is size-limited and checked before strong-soap sees it; every failure is a SOAP Fault.
 */
export function createSoapHandler(options: SoapHandlerOptions): RequestListener {
  const { logger } = options;

  const handle = async (req: IncomingMessage, res: ServerResponse, seen: { operation: string }) => {
    const target = requestTarget(req.url);
    if (!target) return plain(res, 400, 'Bad Request');
    if (target.path !== SERVICE_PATH) return plain(res, 404, 'Not Found');
    if (req.method !== 'GET' && req.method !== 'POST') return plain(res, 405, 'Method Not Allowed', { Allow: 'GET, POST' });

    const outcome = await options.auth.authorize(req);
    if (!outcome.ok) {
      // Connection: close, so that an unauthenticated body is never read.
      const headers: Record<string, string> = { Connection: 'close' };
      if (outcome.status === 401) headers['WWW-Authenticate'] = 'Basic realm="MPSInterfaceService", charset="UTF-8"';
      else headers['Retry-After'] = String(outcome.retryAfterSeconds);
      return plain(res, outcome.status, outcome.status === 401 ? 'Unauthorized' : 'Too Many Requests', headers);
    }

    if (req.method === 'GET') {
      if (!target.wantsWsdl) return plain(res, 405, 'POST a SOAP 1.1 envelope, or GET ?wsdl', { Allow: 'GET, POST' });
      seen.operation = 'wsdl';
      res.statusCode = 200;
      res.setHeader('Content-Type', 'text/xml; charset=utf-8');
      res.end(options.wsdl(req));
      return;
    }

    const xml = await readSoapBody(req, options.maxBodyBytes);
    const soapAction = req.headers.soapaction;
    const request = readSoapRequest(xml, options.namespace, Array.isArray(soapAction) ? soapAction[0] : soapAction);
    seen.operation = request.operation;
    writeXml(res, await options.dispatcher.dispatch(xml, req, request, outcome.caller));
  };

  return (req, res) => {
    const seen = { operation: 'unknown' };
    if (options.completed) {
      const started = performance.now();
      const completed = options.completed;
      res.once('finish', () => completed({ operation: seen.operation, outcome: outcomeOf(res.statusCode), durationSeconds: (performance.now() - started) / 1000 }));
    }
    handle(req, res, seen).catch((err: unknown) => {
      if (res.destroyed || req.socket.destroyed) return; // the caller went away; nobody to answer
      if (err instanceof SoapFault) {
        if (err.code === 'GW_ERR_SOAP_INTERNAL') logger.error('SOAP operation failed', { error: (err.cause as Error | undefined)?.message ?? err.message });
        else logger.debug('SOAP request refused', { code: err.code, fault: err.message });
        return writeFault(res, err);
      }
      logger.error('SOAP request failed', { error: (err as Error).message });
      writeFault(res, new SoapFault('GW_ERR_SOAP_INTERNAL', 'internal error'));
    });
  };
}
