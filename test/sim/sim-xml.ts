/**
 * Response envelopes in the shape of Intel AMT (as the published WS-Management vectors show): prefixes a..i declared on
 * the envelope, `g:` for the class of a Get or for enumeration, `h:` for the items of a Pull.
 */

export const NS = {
  soap: 'http://www.w3.org/2003/05/soap-envelope',
  addressing: 'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  wsman: 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd',
  enumeration: 'http://schemas.xmlsoap.org/ws/2004/09/enumeration',
  transfer: 'http://schemas.xmlsoap.org/ws/2004/09/transfer',
  common: 'http://schemas.dmtf.org/wbem/wscim/1/common',
} as const;

export const ANONYMOUS = `${NS.addressing}/role/anonymous`;

/** Pre-built XML for structured values (references, datetimes) using the envelope's prefixes. */
export interface RawXml {
  raw: string;
}
export type SimValue = string | number | boolean | RawXml | readonly SimValue[];
export type SimProps = ReadonlyArray<readonly [string, SimValue]>;

/** One CIM instance as the simulator holds it. */
export interface SimInstance {
  className: string;
  props: SimProps;
}

export function esc(text: string): string {
  return text.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

export function classUri(className: string): string {
  if (className.startsWith('AMT_')) return `http://intel.com/wbem/wscim/1/amt-schema/1/${className}`;
  if (className.startsWith('IPS_')) return `http://intel.com/wbem/wscim/1/ips-schema/1/${className}`;
  return `http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/${className}`;
}

/** An endpoint reference value. */
export function epr(className: string, selectors: Record<string, string>): RawXml {
  const sel = Object.entries(selectors)
    .map(([k, v]) => `<c:Selector Name="${esc(k)}">${esc(v)}</c:Selector>`)
    .join('');
  return {
    raw: `<b:Address>${ANONYMOUS}</b:Address><b:ReferenceParameters><c:ResourceURI>${classUri(className)}</c:ResourceURI><c:SelectorSet>${sel}</c:SelectorSet></b:ReferenceParameters>`,
  };
}

export function datetime(iso: string): RawXml {
  return { raw: `<i:Datetime>${esc(iso)}</i:Datetime>` };
}

function valueXml(prefix: string, name: string, value: SimValue): string {
  if (Array.isArray(value)) return value.map((v) => valueXml(prefix, name, v)).join('');
  const inner = typeof value === 'object' ? (value as RawXml).raw : esc(String(value));
  return `<${prefix}:${name}>${inner}</${prefix}:${name}>`;
}

/** `<prefix:Class>props</prefix:Class>`; `xmlns` is added when the prefix is not declared on the envelope. */
export function instanceXml(prefix: string, instance: SimInstance, declare = false): string {
  const props = instance.props.map(([name, value]) => valueXml(prefix, name, value)).join('');
  const ns = declare ? ` xmlns:${prefix}="${classUri(instance.className)}"` : '';
  return `<${prefix}:${instance.className}${ns}>${props}</${prefix}:${instance.className}>`;
}

export interface EnvelopeParts {
  action: string;
  relatesTo: string;
  messageId: string;
  resourceUri?: string;
  /** Prefix `g` (and optionally `h`) namespaces. */
  g?: string;
  h?: string;
  body: string;
}

/** A response envelope with the namespace declarations AMT puts on every answer. */
export function envelope(parts: EnvelopeParts): string {
  const decl =
    `xmlns:a="${NS.soap}" xmlns:b="${NS.addressing}" xmlns:c="${NS.wsman}" ` +
    'xmlns:d="http://schemas.xmlsoap.org/ws/2005/02/trust" ' +
    'xmlns:e="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd" ' +
    'xmlns:f="http://schemas.dmtf.org/wbem/wsman/1/cimbinding.xsd" ' +
    (parts.g ? `xmlns:g="${parts.g}" ` : '') +
    (parts.h ? `xmlns:h="${parts.h}" ` : '') +
    `xmlns:i="${NS.common}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"`;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<a:Envelope ${decl}><a:Header>` +
    `<b:To>${ANONYMOUS}</b:To><b:RelatesTo>${esc(parts.relatesTo)}</b:RelatesTo>` +
    `<b:Action a:mustUnderstand="true">${esc(parts.action)}</b:Action>` +
    `<b:MessageID>${parts.messageId}</b:MessageID>` +
    (parts.resourceUri ? `<c:ResourceURI>${esc(parts.resourceUri)}</c:ResourceURI>` : '') +
    `</a:Header><a:Body>${parts.body}</a:Body></a:Envelope>`
  );
}

export interface FaultSpec {
  /** `Sender` or `Receiver`. */
  code: 'Sender' | 'Receiver';
  /** Qualified subcode, e.g. `b:DestinationUnreachable`, `c:InvalidSelectors`, `g:InvalidEnumerationContext`. */
  subcode: string;
  reason: string;
  detail?: string;
}

export const FAULTS = {
  destinationUnreachable: {
    code: 'Sender',
    subcode: 'b:DestinationUnreachable',
    reason: 'No route can be determined to reach the destination role defined by the WS-Addressing To.',
  },
  actionNotSupported: {
    code: 'Sender',
    subcode: 'b:ActionNotSupported',
    reason: 'The action is not supported by the service.',
  },
  invalidEnumerationContext: {
    code: 'Receiver',
    subcode: 'g:InvalidEnumerationContext',
    reason: 'The supplied enumeration context is invalid.',
  },
  invalidSelectors: {
    code: 'Sender',
    subcode: 'c:InvalidSelectors',
    reason: 'The Selectors for the resource are not valid.',
  },
  invalidParameter: {
    code: 'Sender',
    subcode: 'c:InvalidParameter',
    reason: 'An operation parameter is not valid.',
  },
} as const satisfies Record<string, FaultSpec>;

/** A SOAP 1.2 Fault envelope (sent with HTTP 400). */
export function faultEnvelope(fault: FaultSpec, relatesTo: string, messageId: string): string {
  const detail = fault.detail ? `<c:FaultDetail>${esc(fault.detail)}</c:FaultDetail>` : '';
  return envelope({
    action: `${NS.addressing}/fault`,
    relatesTo,
    messageId,
    g: NS.enumeration,
    body:
      `<a:Fault><a:Code><a:Value>a:${fault.code}</a:Value><a:Subcode><a:Value>${fault.subcode}</a:Value></a:Subcode></a:Code>` +
      `<a:Reason><a:Text xml:lang="en-US">${esc(fault.reason)}</a:Text></a:Reason><a:Detail>${detail}</a:Detail></a:Fault>`,
  });
}
