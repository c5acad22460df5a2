/**
 * Parses WS-Management responses with fast-xml-parser, independent of the namespace prefixes a device
 * chooses (`a:`, `g:`, `h:` or a default namespace all read the same). Entity processing is off and
 * documents with a DOCTYPE are refused, so nothing a device sends can expand or resolve entities.
 */
import { XMLParser, type EntityDecoderOptions, type X2jOptions } from 'fast-xml-parser';
import { AmtError } from './errors.js';
import { decodeXmlEntities } from './xml-text.js';
import { shapeOrdered, type OrderedNode } from './ordered-tree.js';

/** A parsed element: text, an object of child elements (attributes as `@name`, text as `#text`), or repeats. */
export type WsmanValue = string | WsmanObject | WsmanValue[];
export interface WsmanObject {
  [name: string]: WsmanValue;
}

/** One instance returned by Get, Pull or an optimized Enumerate: its element name and properties. */
export interface WsmanItem {
  className: string;
  properties: WsmanObject;
}

export interface WsmanHeader {
  action: string | null;
  messageId: string | null;
  relatesTo: string | null;
  resourceUri: string | null;
}

export interface WsmanEnvelope {
  header: WsmanHeader;
  /** The children of `Body`, keyed by local name. */
  body: WsmanObject;
}

/** A page of an enumeration: EnumerateResponse or PullResponse. */
export interface EnumerationPage {
  context: string | null;
  items: WsmanItem[];
  endOfSequence: boolean;
}

const decodeText = (_name: string, value: string): string => decodeXmlEntities(value);
/**
 * With entity processing off the parser never decodes through its entity decoder, but builds its
 * default one (entity tables copied) for every document unless given one: this one, shared.
 */
const noEntityDecoder: EntityDecoderOptions = {
  setExternalEntities: () => undefined,
  addInputEntities: () => undefined,
  reset: () => undefined,
  decode: (text) => text,
  setXmlVersion: () => undefined,
};
/** The parser's options but its tree's shape (ordered-tree.ts's test reads them to compare both shapes). */
export const WSMAN_PARSER_OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  // Drops every prefix, and with them the xmlns declarations (fast-xml-parser resolves them to no name).
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  entityDecoder: noEntityDecoder,
  // The predefined entities and character references are decoded as each value is read, not in a
  // second pass that copies the whole tree.
  tagValueProcessor: decodeText,
  attributeValueProcessor: decodeText,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: 64,
  // Matchers instead of jPath strings: nothing here needs paths, and building them costs.
  jPath: false,
} satisfies Partial<X2jOptions>;
// The ordered tree, shaped by ordered-tree.ts into what the default mode gives at far less garbage.
const parser = new XMLParser({ ...WSMAN_PARSER_OPTIONS, preserveOrder: true });

function bad(message: string): AmtError {
  return new AmtError('AMT_ERR_BAD_RESPONSE', message);
}

/** The value as a list (one element for a single occurrence, none for undefined). */
export function asArray(value: WsmanValue | undefined): WsmanValue[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The text of an element (its `#text` when it has attributes; the first one when repeated). */
export function textOf(value: WsmanValue | undefined): string | null {
  if (value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length > 0 ? textOf(value[0]) : null;
  const text = value['#text'];
  return typeof text === 'string' ? text : '';
}

/** The element as an object, or undefined when it is text or absent. */
export function objectOf(value: WsmanValue | undefined): WsmanObject | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return objectOf(value[0]);
  return typeof value === 'object' ? value : undefined;
}

/** Every text value of a possibly repeated element, e.g. `AvailableRequestedPowerStates`. */
export function textsOf(value: WsmanValue | undefined): string[] {
  return asArray(value)
    .map((v) => textOf(v))
    .filter((v): v is string => v !== null);
}

/** A decimal integer property, or null when absent or not a number. */
export function intOf(value: WsmanValue | undefined): number | null {
  const text = textOf(value);
  if (text === null || !/^-?\d+$/.test(text.trim())) return null;
  return Number.parseInt(text, 10);
}

/**
 * An `xs:boolean` property by XML Schema's lexical forms: `true` or `1`, `false` or `0` (AMT sends the
 * words); null when absent or anything else. Flags typed as integers in the schema (e.g.
 * `CanModifyOptInPolicy`, uint32 `1`/`0`) are read with `intOf`.
 */
export function booleanOf(value: WsmanValue | undefined): boolean | null {
  const text = textOf(value)?.trim();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  return null;
}

/**
 * Parses a SOAP envelope into header fields and body children.
 * @throws AmtError `AMT_ERR_BAD_RESPONSE` for anything that is not a SOAP envelope.
 */
export function parseEnvelope(xml: string): WsmanEnvelope {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw bad('response contains a DOCTYPE');
  let root: WsmanObject;
  try {
    root = shapeOrdered(parser.parse(xml) as OrderedNode[]);
  } catch {
    throw bad('response is not well-formed XML');
  }
  const env = objectOf(root['Envelope']);
  if (!env) throw bad('response is not a SOAP envelope');
  const body = objectOf(env['Body']) ?? (env['Body'] === '' ? {} : undefined);
  if (!body) throw bad('SOAP envelope has no Body');
  const header = objectOf(env['Header']) ?? {};
  return {
    header: {
      action: textOf(header['Action']),
      messageId: textOf(header['MessageID']),
      relatesTo: textOf(header['RelatesTo']),
      resourceUri: textOf(header['ResourceURI']),
    },
    body,
  };
}

function itemsOf(itemsNode: WsmanValue | undefined): WsmanItem[] {
  const items: WsmanItem[] = [];
  for (const container of asArray(itemsNode)) {
    const obj = objectOf(container);
    if (!obj) continue;
    for (const [className, value] of Object.entries(obj)) {
      if (className.startsWith('@') || className === '#text') continue;
      for (const entry of asArray(value)) items.push({ className, properties: objectOf(entry) ?? {} });
    }
  }
  return items;
}

function pageOf(node: WsmanObject): EnumerationPage {
  const context = textOf(node['EnumerationContext']);
  return {
    context: context === null || context === '' ? null : context,
    items: itemsOf(node['Items']),
    endOfSequence: node['EndOfSequence'] !== undefined,
  };
}

/**
 * Reads an EnumerateResponse: the enumeration context (and items, when the device optimised the
 * enumeration). @throws AmtError `AMT_ERR_BAD_RESPONSE` when the body holds no EnumerateResponse.
 */
export function parseEnumerateResponse(env: WsmanEnvelope): EnumerationPage {
  const node = objectOf(env.body['EnumerateResponse']);
  if (!node) throw bad('expected an EnumerateResponse');
  return pageOf(node);
}

/**
 * Reads a PullResponse: its items, the context for the next Pull and whether the sequence ended.
 * @throws AmtError `AMT_ERR_BAD_RESPONSE` when the body holds no PullResponse.
 */
export function parsePullResponse(env: WsmanEnvelope): EnumerationPage {
  const node = objectOf(env.body['PullResponse']);
  if (!node) throw bad('expected a PullResponse');
  return pageOf(node);
}

/**
 * Reads the instance of a Get (or Put) response.
 * @throws AmtError `AMT_ERR_BAD_RESPONSE` when the body holds no element named `className`.
 */
export function parseInstance(env: WsmanEnvelope, className: string): WsmanItem {
  const node = env.body[className];
  const props = objectOf(node);
  if (!props) throw bad(`expected a ${className} instance`);
  return { className, properties: props };
}

/** The result of a method invocation: its `{Method}_OUTPUT` properties and `ReturnValue`. */
export interface MethodOutput {
  properties: WsmanObject;
  returnValue: number | null;
}

/**
 * Reads a `{method}_OUTPUT` body.
 * @throws AmtError `AMT_ERR_BAD_RESPONSE` when the body holds no such element.
 */
export function parseMethodOutput(env: WsmanEnvelope, method: string): MethodOutput {
  const node = env.body[`${method}_OUTPUT`];
  const props = objectOf(node) ?? (node === '' ? {} : undefined);
  if (!props) throw bad(`expected ${method}_OUTPUT`);
  return { properties: props, returnValue: intOf(props['ReturnValue']) };
}

/** Flattens an item's properties to plain strings and string lists, for inventory output. */
export function flattenProperties(props: WsmanObject): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(props)) {
    if (name.startsWith('@') || name === '#text') continue;
    if (Array.isArray(value)) {
      out[name] = value.map((v) => flattenScalar(v));
    } else {
      out[name] = flattenScalar(value);
    }
  }
  return out;
}

function flattenScalar(value: WsmanValue): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(flattenScalar).join(',');
  // Structured values such as CIM datetimes (`<Datetime>`) or references: take the first text found.
  for (const [key, child] of Object.entries(value)) {
    if (key.startsWith('@')) continue;
    const text = flattenScalar(child);
    if (text !== '') return text;
  }
  return '';
}
