/** Reading the parsed request tree (fast-xml-parser, prefixes removed): elements, their text, selectors. */
import type { CallInput, XmlNode } from './firmware-calls.js';

export function node(value: unknown): XmlNode | undefined {
  if (Array.isArray(value)) return node(value[0]);
  return value !== null && typeof value === 'object' ? (value as XmlNode) : undefined;
}

export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return textOf(value[0]);
  const n = node(value);
  return typeof n?.['#text'] === 'string' ? (n['#text'] as string) : n ? '' : undefined;
}

export function intOf(text: string | undefined): number | null {
  return text !== undefined && /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : null;
}

/** `Name` → value of a `SelectorSet`. */
export function selectorsIn(parent: XmlNode | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const list = node(parent?.['SelectorSet'])?.['Selector'];
  for (const selector of Array.isArray(list) ? list : list !== undefined ? [list] : []) {
    const name = node(selector)?.['@Name'];
    if (typeof name === 'string') out[name] = textOf(selector) ?? '';
  }
  return out;
}

export function callInput(fields: XmlNode): CallInput {
  return {
    text: (name) => textOf(fields[name]),
    texts: (name) => {
      const value = fields[name];
      return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((v) => textOf(v) ?? '');
    },
    reference: (name) => {
      const params = node(node(fields[name])?.['ReferenceParameters']);
      return params ? selectorsIn(params) : undefined;
    },
  };
}
