/**
 * Response envelopes in the shape of Intel AMT, as the published vectors show them: prefixes a..f
 * and xsi declared on every envelope, then per answer: a Get or Put `g:` the class (`h:` the CIM
 * common namespace when the class uses it), a Pull `g:` enumeration, `h:` the items' class (`i:`
 * common), a method's output `g:` the class, Enumerate and Release `g:` enumeration.
 */
import type { XmlTree } from './answers/xml-tree.js';

export const NS = {
  soap: 'http://www.w3.org/2003/05/soap-envelope',
  addressing: 'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  wsman: 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd',
  enumeration: 'http://schemas.xmlsoap.org/ws/2004/09/enumeration',
  transfer: 'http://schemas.xmlsoap.org/ws/2004/09/transfer',
  common: 'http://schemas.dmtf.org/wbem/wscim/1/common',
} as const;

export const ANONYMOUS = `${NS.addressing}/role/anonymous`;

/** A structured value (a reference, a datetime): elements rendered with the answer's prefixes. */
export interface SimElementValue {
  element: readonly XmlTree[];
}
export type SimValue = string | number | boolean | SimElementValue | readonly SimValue[];
export type SimProps = ReadonlyArray<readonly [string, SimValue]>;

/** One CIM instance (or a method's `_OUTPUT`) as the simulator holds it. */
export interface SimInstance {
  className: string;
  props: SimProps;
  /** Whether answers with this class declare the CIM common namespace (as the class's vectors do). */
  declaresCommon?: boolean;
}

export function esc(text: string): string {
  return text.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

export function classUri(className: string): string {
  if (className.startsWith('AMT_')) return `http://intel.com/wbem/wscim/1/amt-schema/1/${className}`;
  if (className.startsWith('IPS_')) return `http://intel.com/wbem/wscim/1/ips-schema/1/${className}`;
  return `http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/${className}`;
}

/** An element of an answer's structured value. */
function element(ns: string, name: string, text: string, children: XmlTree[] = [], attrs: Record<string, string> = {}): XmlTree {
  return { ns, name, attrs, children, text, declared: {} };
}

/** An endpoint reference value (a method's output that names an instance it created), as AMT writes one. */
export function epr(className: string, selectors: Record<string, string>): SimElementValue {
  const selectorSet = Object.entries(selectors).map(([name, value]) => element(NS.wsman, 'Selector', value, [], { Name: name }));
  return {
    element: [
      element(NS.addressing, 'Address', ANONYMOUS),
      element(NS.addressing, 'ReferenceParameters', '', [element(NS.wsman, 'ResourceURI', classUri(className)), element(NS.wsman, 'SelectorSet', '', selectorSet)]),
    ],
  };
}

/** The prefix of each namespace an answer declares (URI -> prefix). */
export type Prefixes = ReadonlyMap<string, string>;

function elementXml(tree: XmlTree, prefixes: Prefixes): string {
  const known = prefixes.get(tree.ns);
  const prefix = known ?? 'x';
  const declare = known === undefined ? ` xmlns:x="${esc(tree.ns)}"` : '';
  const attrs = Object.entries(tree.attrs)
    .map(([name, value]) => ` ${name}="${esc(value)}"`)
    .join('');
  const inner = tree.children.length > 0 ? tree.children.map((child) => elementXml(child, prefixes)).join('') : esc(tree.text);
  return `<${prefix}:${tree.name}${declare}${attrs}>${inner}</${prefix}:${tree.name}>`;
}

/** Structured values rendered once per answer shape: a template's references and datetimes are the same objects every time. */
const renderedElements = new WeakMap<SimElementValue, Map<Prefixes, string>>();

function elementsXml(value: SimElementValue, prefixes: Prefixes): string {
  let byPrefixes = renderedElements.get(value);
  if (!byPrefixes) renderedElements.set(value, (byPrefixes = new Map()));
  let xml = byPrefixes.get(prefixes);
  if (xml === undefined) byPrefixes.set(prefixes, (xml = value.element.map((e) => elementXml(e, prefixes)).join('')));
  return xml;
}

function valueXml(prefix: string, name: string, value: SimValue, prefixes: Prefixes): string {
  if (Array.isArray(value)) return value.map((v) => valueXml(prefix, name, v, prefixes)).join('');
  const inner = typeof value === 'object' ? elementsXml(value as SimElementValue, prefixes) : esc(String(value));
  return `<${prefix}:${name}>${inner}</${prefix}:${name}>`;
}

/** `<prefix:Class>props</prefix:Class>`; `xmlns` is added when the prefix is not declared on the envelope. */
export function instanceXml(prefix: string, instance: SimInstance, prefixes: Prefixes, declare = false): string {
  const props = instance.props.map(([name, value]) => valueXml(prefix, name, value, prefixes)).join('');
  const ns = declare ? ` xmlns:${prefix}="${classUri(instance.className)}"` : '';
  return `<${prefix}:${instance.className}${ns}>${props}</${prefix}:${instance.className}>`;
}

/** The namespaces an answer declares beyond a..f and xsi, in order (`g`, `h`, `i`). */
export type AnswerNamespaces = ReadonlyArray<readonly [prefix: string, uri: string]>;

/** One array per answer shape, so that what is rendered for it can be remembered. */
const shapes = new Map<string, AnswerNamespaces>();
function shape(key: string, make: () => AnswerNamespaces): AnswerNamespaces {
  let namespaces = shapes.get(key);
  if (!namespaces) shapes.set(key, (namespaces = make()));
  return namespaces;
}

/** A Get or Put answer (and a method's, whose class has no common namespace in the vectors). */
export const instanceNamespaces = (className: string, common = false): AnswerNamespaces =>
  shape(`instance ${className} ${common}`, () => [['g', classUri(className)], ...(common ? [['h', NS.common] as const] : [])]);
/** A Pull answer whose items are of `itemClass`. */
export const pullNamespaces = (itemClass: string, common = false): AnswerNamespaces =>
  shape(`pull ${itemClass} ${common}`, () => [['g', NS.enumeration], ['h', classUri(itemClass)], ...(common ? [['i', NS.common] as const] : [])]);
export const ENUMERATION_NAMESPACES: AnswerNamespaces = [['g', NS.enumeration]];

const FIXED_NAMESPACES: AnswerNamespaces = [
  ['a', NS.soap],
  ['b', NS.addressing],
  ['c', NS.wsman],
  ['d', 'http://schemas.xmlsoap.org/ws/2005/02/trust'],
  ['e', 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd'],
  ['f', 'http://schemas.dmtf.org/wbem/wsman/1/cimbinding.xsd'],
];

const prefixMaps = new WeakMap<AnswerNamespaces, Prefixes>();

/** The prefixes of an answer's elements, for rendering values (one map per answer shape). */
export function prefixesOf(namespaces: AnswerNamespaces): Prefixes {
  let prefixes = prefixMaps.get(namespaces);
  if (!prefixes) prefixMaps.set(namespaces, (prefixes = new Map([...FIXED_NAMESPACES, ...namespaces].map(([prefix, uri]) => [uri, prefix]))));
  return prefixes;
}

export interface EnvelopeParts {
  action: string;
  relatesTo: string;
  messageId: string;
  resourceUri?: string;
  namespaces: AnswerNamespaces;
  body: string;
}

/** A response envelope with the namespace declarations AMT puts on every answer. */
export function envelope(parts: EnvelopeParts): string {
  const decl = [...FIXED_NAMESPACES, ...parts.namespaces, ['xsi', 'http://www.w3.org/2001/XMLSchema-instance'] as const].map(([prefix, uri]) => `xmlns:${prefix}="${uri}"`).join(' ');
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

/** WS-Management's (DSP0226) and WS-Addressing's fault subcodes a device answers with; no vector holds a fault. */
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
    namespaces: ENUMERATION_NAMESPACES,
    body:
      `<a:Fault><a:Code><a:Value>a:${fault.code}</a:Value><a:Subcode><a:Value>${fault.subcode}</a:Value></a:Subcode></a:Code>` +
      `<a:Reason><a:Text xml:lang="en-US">${esc(fault.reason)}</a:Text></a:Reason><a:Detail>${detail}</a:Detail></a:Fault>`,
  });
}
