import { readFileSync } from 'node:fs';
import { packagePath } from '../../core/assets/package-root.js';
import { escapeXml } from './soap-envelope.js';

const TEMPLATE_FILE = packagePath('schemas', 'mps-interface.wsdl');

/** Path of the service on the SOAP listener (CONTRACT section 8). */
export const SERVICE_PATH = '/MPSInterfaceService';

/** The service namespace for a namespace base: `{nsBase}/MPSInterface/2010/11`. */
export function serviceNamespace(nsBase: string): string {
  return `${nsBase.replace(/\/+$/, '')}/MPSInterface/2010/11`;
}

let template: string | undefined;

/**
 * The WSDL with the namespace and the service address (`soap:address`) filled in.
 * `baseUrl` is the listener's base URL, e.g. `http://127.0.0.1:7793`.
 */
export function renderWsdl(namespace: string, baseUrl: string): string {
  template ??= readFileSync(TEMPLATE_FILE, 'utf8');
  return template.replaceAll('{{NAMESPACE}}', escapeXml(namespace)).replaceAll('{{SERVICE_URL}}', escapeXml(baseUrl.replace(/\/+$/, '') + SERVICE_PATH));
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '[::]']);
const HOST_HEADER = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The base URL to publish in the WSDL: the listener's own address, or, when it listens on every
 * interface (0.0.0.0 or ::), the host the client used (the Host header, if it is a plain host[:port]).
 */
export function publishedBaseUrl(listenerUrl: string, hostHeader: string | undefined): string {
  const url = new URL(listenerUrl);
  if (!WILDCARD_HOSTS.has(url.hostname) || !hostHeader || !HOST_HEADER.test(hostHeader)) return listenerUrl;
  return `${url.protocol}//${hostHeader}`;
}
