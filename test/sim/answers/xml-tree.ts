/**
 * A namespace-resolved element tree of an XML document (the simulator's answer templates and the
 * comparison of its answers with them): each element's namespace URI and local name, attributes by
 * local name, children in order, and the text of leaf elements exactly as written (a trailing blank
 * in a value is the device's). Whitespace between elements is layout and dropped.
 */
import { XMLParser } from 'fast-xml-parser';

export interface XmlTree {
  ns: string;
  name: string;
  attrs: Record<string, string>;
  children: XmlTree[];
  /** The element's text; '' for an element with children or none. */
  text: string;
  /** The namespace declarations on this element (prefix -> URI; '' for the default namespace). */
  declared: Record<string, string>;
}

const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false, trimValues: false, processEntities: true });

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

function split(qualified: string): [string, string] {
  const colon = qualified.indexOf(':');
  return colon < 0 ? ['', qualified] : [qualified.slice(0, colon), qualified.slice(colon + 1)];
}

function build(node: OrderedNode, scope: Record<string, string>): XmlTree | null {
  const tag = Object.keys(node).find((key) => key !== ':@');
  if (!tag || tag === '#text' || tag.startsWith('?')) return null;
  const rawAttrs = node[':@'] ?? {};
  const declared: Record<string, string> = {};
  const attrs: Record<string, string> = {};
  for (const [key, value] of Object.entries(rawAttrs)) {
    if (key === 'xmlns') declared[''] = value;
    else if (key.startsWith('xmlns:')) declared[key.slice(6)] = value;
    else attrs[split(key)[1]] = value;
  }
  const inner = { ...scope, ...declared };
  const [prefix, name] = split(tag);
  const ns = inner[prefix];
  if (ns === undefined) throw new Error(`undeclared namespace prefix '${prefix}' on <${tag}>`);
  const children: XmlTree[] = [];
  let text = '';
  for (const child of node[tag] as OrderedNode[]) {
    if ('#text' in child) text += String(child['#text']);
    else {
      const built = build(child, inner);
      if (built) children.push(built);
    }
  }
  return { ns, name, attrs, children, text: children.length > 0 ? '' : text, declared };
}

/** Parses a document into its root element's tree. @throws on XML that is not well-formed or uses an undeclared prefix. */
export function parseXmlTree(xml: string): XmlTree {
  const nodes = parser.parse(xml) as OrderedNode[];
  for (const node of nodes) {
    const tree = build(node, { xml: 'http://www.w3.org/XML/1998/namespace' });
    if (tree) return tree;
  }
  throw new Error('no root element');
}

/** The first child element named `name` (any namespace). */
export function childNamed(tree: XmlTree, name: string): XmlTree | undefined {
  return tree.children.find((child) => child.name === name);
}
