/**
 * Turns fast-xml-parser's ordered tree (`preserveOrder: true`) into the plain object shape its default
 * mode gives (children by name, repeats as arrays, attributes as `@name`, text alone as a string,
 * text beside children or attributes as `#text`, an empty element as `''`), for the options
 * wsman-parse.ts uses. The library's own conversion calls `Object.keys` several times per element and
 * tracks a path matcher no option here needs: it made about a sixth of what a device read allocates.
 */

/** An element (`{ name: children, ':@'?: attributes }`) or a text node (`{ '#text': text }`). */
export type OrderedNode = Record<string, unknown>;
export type ShapedValue = string | ShapedObject | ShapedValue[];
export interface ShapedObject {
  [name: string]: ShapedValue;
}

const TEXT = '#text';
const ATTRIBUTES = ':@';
const hasOwn = Object.prototype.hasOwnProperty;

/** The node's name: its first key that is not the attributes. */
function nameOf(node: OrderedNode): string | undefined {
  for (const key in node) if (key !== ATTRIBUTES) return key;
  return undefined;
}

/** The shaped value of an element: its children shaped, then its attributes, or its text alone. */
function elementValue(children: OrderedNode[], attributes: Record<string, string> | undefined): ShapedValue {
  const value = shapeOrdered(children);
  if (attributes) {
    for (const key in attributes) value[key] = attributes[key]!;
    return value;
  }
  let count = 0;
  for (const _ in value) if (++count > 1) return value;
  if (count === 0) return '';
  return value[TEXT] !== undefined ? value[TEXT] : value;
}

/** Shapes a list of ordered nodes (a document's top level, or an element's children). */
export function shapeOrdered(nodes: OrderedNode[]): ShapedObject {
  let text: string | undefined;
  const shaped: ShapedObject = {};
  for (const node of nodes) {
    const name = nameOf(node);
    if (name === undefined) continue;
    if (name === TEXT) {
      text = text === undefined ? (node[TEXT] as string) : text + (node[TEXT] as string);
      continue;
    }
    const children = node[name] as OrderedNode[] | undefined;
    if (!children) continue;
    const value = elementValue(children, node[ATTRIBUTES] as Record<string, string> | undefined);
    const previous = hasOwn.call(shaped, name) ? shaped[name] : undefined;
    if (previous === undefined) shaped[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else shaped[name] = [previous, value];
  }
  if (text !== undefined && text.length > 0) shaped[TEXT] = text;
  return shaped;
}
