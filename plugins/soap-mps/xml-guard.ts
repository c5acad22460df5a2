import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SoapFault } from './errors.js';

/** A namespace-resolved XML element: what the SOAP layer reads from a request. */
export interface XmlElement {
  /** Namespace URI; '' for none. */
  ns: string;
  local: string;
  attributes: Array<{ ns: string; local: string; value: string }>;
  children: XmlElement[];
  /** Character data directly inside the element (entities decoded, CDATA kept verbatim). */
  text: string;
}

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const MAX_DEPTH = 32;

// processEntities is off: entity references are decoded below, where anything but the XML
// predefined entities and character references is refused instead of expanded.
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: false,
  htmlEntities: false,
  cdataPropName: '#cdata',
});

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(raw: string): string {
  return raw.replace(/&([^;&\s]{0,64});?/g, (match, name: string) => {
    if (!match.endsWith(';')) throw malformed('a bare & is not allowed');
    if (Object.hasOwn(PREDEFINED, name)) return PREDEFINED[name]!;
    const code = /^#x([0-9a-fA-F]{1,6})$/.exec(name)?.[1] ?? /^#(\d{1,7})$/.exec(name)?.[1];
    if (code !== undefined) {
      const value = name.startsWith('#x') ? parseInt(code, 16) : parseInt(code, 10);
      const legal = value === 0x9 || value === 0xa || value === 0xd || (value >= 0x20 && value <= 0xd7ff) || (value >= 0xe000 && value <= 0xfffd) || (value >= 0x10000 && value <= 0x10ffff);
      if (!legal) throw malformed(`character reference &${name}; is not a legal XML character`);
      return String.fromCodePoint(value);
    }
    throw new SoapFault('GW_ERR_SOAP_DOCTYPE', `entity reference &${name.slice(0, 40)}; is not allowed: only the XML predefined entities and character references are`);
  });
}

function malformed(detail: string): SoapFault {
  return new SoapFault('GW_ERR_SOAP_MALFORMED', `malformed XML: ${detail}`);
}

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

function split(qname: string): [prefix: string, local: string] {
  const colon = qname.indexOf(':');
  return colon < 0 ? ['', qname] : [qname.slice(0, colon), qname.slice(colon + 1)];
}

function tagOf(node: OrderedNode): string | undefined {
  return Object.keys(node).find((k) => k !== ':@');
}

function toElement(node: OrderedNode, tag: string, scope: Map<string, string>, depth: number): XmlElement {
  if (depth > MAX_DEPTH) throw malformed(`elements nested deeper than ${MAX_DEPTH} levels`);
  const rawAttributes = node[':@'] ?? {};
  let local = scope;
  for (const [name, raw] of Object.entries(rawAttributes)) {
    if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue;
    if (local === scope) local = new Map(scope);
    local.set(name === 'xmlns' ? '' : name.slice(6), decodeEntities(raw));
  }
  const resolve = (prefix: string, what: string) => {
    const uri = local.get(prefix);
    if (uri === undefined || (prefix !== '' && uri === '')) throw malformed(`namespace prefix '${prefix.slice(0, 40)}' of ${what} is not declared`);
    return uri;
  };
  const [prefix, name] = split(tag);
  const element: XmlElement = { ns: prefix === '' ? (local.get('') ?? '') : resolve(prefix, `element ${tag.slice(0, 80)}`), local: name, attributes: [], children: [], text: '' };
  for (const [attr, raw] of Object.entries(rawAttributes)) {
    if (attr === 'xmlns' || attr.startsWith('xmlns:')) continue;
    const [attrPrefix, attrLocal] = split(attr);
    element.attributes.push({ ns: attrPrefix === '' ? '' : resolve(attrPrefix, `attribute ${attr.slice(0, 80)}`), local: attrLocal, value: decodeEntities(raw) });
  }
  for (const child of (node[tag] as OrderedNode[] | undefined) ?? []) {
    const childTag = tagOf(child);
    if (childTag === '#text') element.text += decodeEntities(String(child['#text']));
    else if (childTag === '#cdata') element.text += ((child['#cdata'] as Array<{ '#text'?: unknown }>) ?? []).map((t) => String(t['#text'] ?? '')).join('');
    else if (childTag !== undefined) element.children.push(toElement(child, childTag, local, depth + 1));
  }
  return element;
}

/**
 * Checks that `xml` is one well-formed document without a DOCTYPE, entity declaration or
 * external reference, and returns its root element with namespaces resolved. Nothing is ever
 * fetched or read: every failure is a SoapFault naming the problem.
 */
export function parseXmlSafely(xml: string): XmlElement {
  if (/<!DOCTYPE/i.test(xml) || /<!ENTITY/i.test(xml)) {
    throw new SoapFault('GW_ERR_SOAP_DOCTYPE', 'DOCTYPE and entity declarations are not allowed');
  }
  const verdict = XMLValidator.validate(xml);
  if (verdict !== true) {
    const { msg, line, col } = verdict.err;
    throw malformed(`${msg} (line ${line}${col === undefined ? '' : `, column ${col}`})`);
  }
  let nodes: OrderedNode[];
  try {
    nodes = parser.parse(xml) as OrderedNode[];
  } catch (err) {
    throw malformed((err as Error).message.slice(0, 200));
  }
  const roots = nodes.filter((n) => {
    const tag = tagOf(n);
    if (tag === '#text') {
      if (String(n['#text']).trim() !== '') throw malformed('text outside the root element');
      return false;
    }
    return tag !== undefined;
  });
  if (roots.length !== 1) throw malformed(roots.length === 0 ? 'no root element' : 'more than one root element');
  const root = roots[0]!;
  return toElement(root, tagOf(root)!, new Map([['xml', XML_NS]]), 0);
}
