/** Namespaces, actions and resource URIs of WS-Management as Intel AMT speaks it. */

export const NS = {
  soap: 'http://www.w3.org/2003/05/soap-envelope',
  addressing: 'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  wsman: 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd',
  enumeration: 'http://schemas.xmlsoap.org/ws/2004/09/enumeration',
  transfer: 'http://schemas.xmlsoap.org/ws/2004/09/transfer',
} as const;

export const ANONYMOUS = 'http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous';

export const ACTION = {
  get: `${NS.transfer}/Get`,
  put: `${NS.transfer}/Put`,
  enumerate: `${NS.enumeration}/Enumerate`,
  pull: `${NS.enumeration}/Pull`,
  release: `${NS.enumeration}/Release`,
} as const;

const PREFIXES: ReadonlyArray<readonly [string, string]> = [
  ['AMT_', 'http://intel.com/wbem/wscim/1/amt-schema/1/'],
  ['CIM_', 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/'],
  ['IPS_', 'http://intel.com/wbem/wscim/1/ips-schema/1/'],
];

/**
 * The resource URI of a class, e.g. `CIM_SoftwareIdentity` ->
 * `http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_SoftwareIdentity`.
 * @throws Error for a class name without a known prefix (a programming error, not a device outcome).
 */
export function resourceUri(className: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(className)) throw new Error(`invalid class name: ${className}`);
  for (const [prefix, base] of PREFIXES) {
    if (className.startsWith(prefix)) return base + className;
  }
  throw new Error(`unknown class prefix: ${className}`);
}

/** The class name at the end of a resource URI, or the URI itself when it has no path. */
export function classNameOf(uri: string): string {
  const slash = uri.lastIndexOf('/');
  return slash >= 0 ? uri.slice(slash + 1) : uri;
}

/** The action URI of a method invocation: `{ResourceURI}/{Method}`. */
export function methodAction(className: string, method: string): string {
  return `${resourceUri(className)}/${method}`;
}
