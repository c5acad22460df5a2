import { SaxesParser, type SaxesTagNS } from 'saxes';
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

const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
const MAX_DEPTH = 32;
const PREDEFINED = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);

function malformed(detail: string): SoapFault {
  return new SoapFault('GW_ERR_SOAP_MALFORMED', `malformed XML: ${detail}`);
}

/** Anything but the predefined entities and character references is refused before parsing: nothing is expanded. */
function refuseEntityReferences(xml: string): void {
  for (const match of xml.matchAll(/&([^;&\s#]{1,64});/g)) {
    const name = match[1]!;
    if (!PREDEFINED.has(name)) {
      throw new SoapFault('GW_ERR_SOAP_DOCTYPE', `entity reference &${name.slice(0, 40)}; is not allowed: only the XML predefined entities and character references are`);
    }
  }
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
  refuseEntityReferences(xml);
  // saxes checks XML 1.0 and namespace well-formedness strictly (legal characters, attribute
  // syntax, prefixes, comments, CDATA ends), which fast-xml-parser's validator does not.
  const parser = new SaxesParser({ xmlns: true, position: true });
  let root: XmlElement | undefined;
  const open: XmlElement[] = [];
  parser.on('error', (err) => {
    throw malformed(err.message.slice(0, 200));
  });
  parser.on('doctype', () => {
    throw new SoapFault('GW_ERR_SOAP_DOCTYPE', 'DOCTYPE and entity declarations are not allowed');
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    if (open.length >= MAX_DEPTH) throw malformed(`elements nested deeper than ${MAX_DEPTH} levels`);
    const element: XmlElement = { ns: tag.uri, local: tag.local, attributes: [], children: [], text: '' };
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.uri === XMLNS_NS) continue;
      element.attributes.push({ ns: attribute.uri, local: attribute.local, value: attribute.value });
    }
    const parent = open.at(-1);
    if (parent) parent.children.push(element);
    else root = element;
    open.push(element);
  });
  parser.on('closetag', () => void open.pop());
  const addText = (text: string) => {
    const current = open.at(-1);
    if (current) current.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.write(xml).close();
  if (!root) throw malformed('no root element');
  return root;
}
