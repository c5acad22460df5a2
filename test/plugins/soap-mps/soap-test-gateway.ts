/**
 * Starts a real gateway with the soap-mps plugin on port 0 and the presence fixture as its
 * `remote-monitor`, and gives the tests raw SOAP access (undici) to it.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { XMLParser } from 'fast-xml-parser';
import { ADMIN_PASSWORD, startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import type { ConnectedMachine } from '../../../plugins/remote-monitor/api.js';
import { presenceFixtures, type PresenceFixture } from './fixtures/presence-fixture-plugin.js';

export const FIXTURE_PATH = fileURLToPath(new URL('./fixtures/presence-fixture-plugin.ts', import.meta.url));
export const SOAP11 = 'http://schemas.xmlsoap.org/soap/envelope/';
export const DEFAULT_NS = 'http://intel.com/wbem/MPSInterface/2010/11';
/** A user holding only mps:read (created when `reader` is set). */
export const READER = { username: 'soap-reader', password: 'user-password-1' };
export const ADMIN = { username: 'admin', password: ADMIN_PASSWORD };

export interface SoapResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body, namespace prefixes removed (`Envelope.Body...`); undefined when not XML. */
  xml: Record<string, any> | undefined;
}

export interface SoapTestGateway {
  harness: TestGateway;
  /** Base URL of the SOAP listener, e.g. http://127.0.0.1:41234. */
  soapUrl: string;
  /** soapUrl + /MPSInterfaceService */
  serviceUrl: string;
  ns: string;
  fixture: PresenceFixture;
  /** The user the tests call as: READER with `reader`, else ADMIN. */
  credentials: { username: string; password: string };
  /** The Authorization header of `credentials`. */
  basic: string;
  logs: string[];
  /** POSTs a raw envelope; `authorization: null` sends none. */
  post(body: string | Buffer, options?: { action?: string; authorization?: string | null; headers?: Record<string, string> }): Promise<SoapResponse>;
  stop(): Promise<void>;
  cleanup(): Promise<void>;
}

export interface SoapTestGatewayOptions {
  /** soap-mps options (port 0 always). */
  soap?: Record<string, unknown>;
  machines?: ConnectedMachine[];
  /** Create READER (a user with only mps:read) and call as it; default: call as the admin. */
  reader?: boolean;
  /** More built-in plugins to enable (e.g. `audit`). */
  plugins?: string[];
  /** Site settings besides the plugins merged into the configuration (e.g. `{ auth: { login: {...} } }`). */
  site?: Record<string, unknown>;
  /** Reuse a data directory and master key (restart tests). */
  dataDir?: string;
  masterKey?: string;
}

const parser = new XMLParser({ removeNSPrefix: true, ignoreAttributes: false, parseTagValue: false, isArray: (name) => name === 'Items' });

export function basicHeader(username: string, password: string): string {
  return 'Basic ' + Buffer.from(`${username}:${password}`).toString('base64');
}

/** A SOAP 1.1 envelope with the service namespace bound to `m:`. */
export function envelope(inner: string, ns = DEFAULT_NS): string {
  return `<?xml version="1.0" encoding="UTF-8"?><s:Envelope xmlns:s="${SOAP11}" xmlns:m="${ns}"><s:Body>${inner}</s:Body></s:Envelope>`;
}

export function parseXml(text: string): Record<string, any> | undefined {
  try {
    return parser.parse(text) as Record<string, any>;
  } catch {
    return undefined;
  }
}

/** faultcode and faultstring of a SOAP Fault response, or undefined. */
export function faultOf(res: SoapResponse): { code: string; message: string; detail: string } | undefined {
  const fault = res.xml?.Envelope?.Body?.Fault;
  return fault ? { code: String(fault.faultcode), message: String(fault.faultstring), detail: String(fault.detail?.code ?? '') } : undefined;
}

/** The SOAP service URL a gateway logged when its listener started (tests run it on port 0). */
export function soapServiceUrl(logs: string[]): { url: string; namespace: string } {
  const serving = logs.map((l) => JSON.parse(l) as { msg: string; url?: string; namespace?: string }).find((l) => l.msg === 'MPSInterfaceService serving');
  if (!serving?.url || !serving.namespace) throw new Error('the SOAP listener did not report its address');
  return { url: serving.url, namespace: serving.namespace };
}

/** A raw SOAP poster (undici) for `serviceUrl`, sending `basic` unless told otherwise. */
export function soapPoster(serviceUrl: string, basic: string): SoapTestGateway['post'] {
  return async (body, { action, authorization, headers = {} } = {}) => {
    const res = await request(serviceUrl, {
      method: 'POST',
      headers: {
        'content-type': 'text/xml; charset=utf-8',
        ...(action ? { soapaction: `"${action}"` } : {}),
        ...(authorization === null ? {} : { authorization: authorization ?? basic }),
        ...headers,
      },
      body,
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text, xml: parseXml(text) };
  };
}

export async function startSoapGateway(options: SoapTestGatewayOptions = {}): Promise<SoapTestGateway> {
  const id = randomBytes(6).toString('hex');
  const logs: string[] = [];
  const harness = await startTestGateway({
    plugins: ['soap-mps', ...(options.plugins ?? [])],
    logs,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.masterKey ? { masterKey: options.masterKey } : {}),
    overrides: {
      ...options.site,
      plugins: {
        'remote-monitor': { enable: true, path: FIXTURE_PATH, options: { id } },
        'soap-mps': { enable: true, options: { ...options.soap, port: 0 } },
      },
    },
  });
  const serving = soapServiceUrl(logs);
  const listener = harness.gateway.listeners.find((l) => l.plugin === 'soap-mps');
  if (!listener || listener.url + '/MPSInterfaceService' !== serving.url) throw new Error('the gateway does not list the SOAP listener it logged');
  const fixture = presenceFixtures.get(id)!;
  fixture.setMachines(options.machines ?? []);
  if (options.reader) await harness.userWith(['mps:read'], READER.username);
  const credentials = options.reader ? READER : ADMIN;
  const serviceUrl = serving.url;
  const basic = basicHeader(credentials.username, credentials.password);
  return {
    harness,
    soapUrl: serviceUrl.replace(/\/MPSInterfaceService$/, ''),
    serviceUrl,
    ns: serving.namespace,
    fixture,
    credentials,
    basic,
    logs,
    post: soapPoster(serviceUrl, basic),
    stop: () => harness.stop(),
    cleanup: () => harness.cleanup(),
  };
}
