import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { SoapCaller } from './client-auth.js';
import { SoapFault } from './errors.js';
import { EMPTY_RESPONSE_OPERATIONS, type Operations } from './operations.js';
import { soapEnvelope } from './soap-envelope.js';
import { OPERATIONS, type OperationName, type SoapRequest } from './soap-request.js';
import { SERVICE_PATH } from './wsdl.js';

type SoapCallback = (error: unknown, result?: unknown) => void;
type ServiceMethod = (args: unknown, callback: SoapCallback, headers: unknown, req: IncomingMessage) => void;

interface StrongSoapWsdl {
  load(callback: (err: Error | null) => void): void;
}
interface StrongSoapServer {
  /** Parses a request envelope, runs the operation and serializes its output message (internal API of strong-soap 5). */
  _process(xml: string, req: IncomingMessage, callback: (xml: string, statusCode?: number) => void): void;
}
interface StrongSoap {
  soap: {
    WSDL: new (definition: string, uri: string | undefined, options: object) => StrongSoapWsdl;
    Server: new (server: EventEmitter, path: string, services: object, wsdl: StrongSoapWsdl, options: object) => StrongSoapServer;
  };
}

// strong-soap is CommonJS without type declarations. It is loaded by the first SOAP request, not
// at start: with its globalization and XML libraries it costs ~50 MiB and 0.3 s of CPU, which a
// gateway whose SOAP clients have not called yet (or never do) should not pay.
let strongSoap: StrongSoap | undefined;
const loadStrongSoap = () => (strongSoap ??= createRequire(import.meta.url)('strong-soap') as StrongSoap);

/** Runs a checked request through strong-soap and returns the response envelope. */
export interface SoapDispatcher {
  dispatch(xml: string, req: IncomingMessage, request: SoapRequest, caller: SoapCaller): Promise<string>;
}

interface PendingCall {
  request: SoapRequest;
  caller: SoapCaller;
  reject: (err: unknown) => void;
}

/**
 * Serves the operations with strong-soap against the rendered WSDL: strong-soap picks the
 * operation from the body element and serializes the output message the WSDL describes.
 *
 * The request reaching strong-soap was already checked (size, DOCTYPE, well-formedness,
 * namespaces, element shapes) by the request guard; the operations read that checked request
 * rather than strong-soap's namespace-blind argument object, and strong-soap never sees the
 * listener: its server is attached to a private emitter and driven through `_process`.
 */
export async function createSoapDispatcher(wsdlXml: string, operations: Operations): Promise<SoapDispatcher> {
  const pending = new WeakMap<IncomingMessage, PendingCall>();
  const asFault = (err: unknown) => (err instanceof SoapFault ? err : new SoapFault('GW_ERR_SOAP_INTERNAL', 'internal error', { cause: err }));
  const fail = (req: IncomingMessage, err: unknown) => {
    const call = pending.get(req);
    pending.delete(req);
    call?.reject(asFault(err));
  };
  const method =
    (name: OperationName): ServiceMethod =>
    (_args, callback, _headers, req) => {
      const call = pending.get(req);
      if (!call) return;
      if (call.request.operation !== name) return fail(req, new Error(`strong-soap dispatched ${name} for a ${call.request.operation} request`));
      const run = operations[name] as (request: SoapRequest, caller: SoapCaller) => Promise<Record<string, unknown>>;
      run(call.request, call.caller).then(
        (result) => callback(null, result),
        (err: unknown) => fail(req, err),
      );
    };
  const services = { MPSInterfaceService: { MPSNInterfaceSoapPortType: Object.fromEntries(OPERATIONS.map((name) => [name, method(name)])) } };

  let started: Promise<StrongSoapServer> | undefined;
  // A failed start is not kept: the next request tries again.
  const server = () =>
    (started ??= startServer(wsdlXml, services).catch((err: unknown) => {
      started = undefined;
      throw err;
    }));

  return {
    async dispatch(xml, req, request, caller) {
      // An output message without parts has nothing for strong-soap to serialize (and its server
      // cannot dispatch such an operation): the checked request runs directly, the Body stays empty.
      if (EMPTY_RESPONSE_OPERATIONS.has(request.operation)) {
        const run = operations[request.operation] as (request: SoapRequest, caller: SoapCaller) => Promise<unknown>;
        await run(request, caller).catch((err: unknown) => {
          throw asFault(err);
        });
        return soapEnvelope('');
      }
      const soap = await server();
      return new Promise<string>((resolve, reject) => {
        pending.set(req, { request, caller, reject });
        try {
          soap._process(xml, req, (out) => {
            pending.delete(req);
            resolve(out);
          });
        } catch (err) {
          fail(req, err);
        }
      });
    },
  };
}

async function startServer(wsdlXml: string, services: object): Promise<StrongSoapServer> {
  const { WSDL, Server } = loadStrongSoap().soap;
  // Load once on our side first: strong-soap's Server throws load errors from a callback, uncaught.
  await new Promise<void>((resolve, reject) => new WSDL(wsdlXml, undefined, {}).load((err) => (err ? reject(err) : resolve())));
  const emitter = new EventEmitter();
  const ready = new Promise<void>((resolve) => {
    emitter.on('newListener', (event: string) => {
      if (event === 'request') setImmediate(resolve);
    });
  });
  // strong-soap pretty-prints responses unless told not to (Base._initializeOptions).
  const server = new Server(emitter, SERVICE_PATH, services, new WSDL(wsdlXml, undefined, {}), { prettyResponse: false });
  await ready;
  return server;
}
