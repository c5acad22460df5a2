/**
 * Parses a WS-Management request for the simulated devices, remembering the parse of each request
 * text apart from its MessageID: a scan sends the same few requests to a thousand devices, each with
 * a fresh MessageID, and parsing them all again was a sixth of the simulator's CPU, on the CPUs the
 * gateway under test shares with it (a real device costs the gateway's machine nothing). The parse
 * is a pure function of the text, so a remembered one is the same answer; the trees are frozen, so
 * that a handler that tried to change one would throw rather than change the next request's.
 */
import { XMLParser } from 'fast-xml-parser';

export type XmlNode = Record<string, unknown>;

export interface ParsedRequest {
  root: XmlNode;
  /**
   * Set when the tree is a remembered one: the request's MessageID, which the tree holds as a
   * placeholder. Undefined otherwise: read it from the tree.
   */
  messageId: string | undefined;
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', removeNSPrefix: true, parseTagValue: false, processEntities: false });
/** One element `<prefix:MessageID>` with a plain value (no whitespace, markup or entity: the parser gives it unchanged). */
const MESSAGE_ID = /<((?:[A-Za-z_][\w.-]*:)?MessageID)>([\w:.-]+)<\/\1>/;
const PLACEHOLDER = 'sim-message-id';
/** Distinct request texts remembered; beyond, the oldest is forgotten (Pulls carry a fresh context each). */
const MAX_REMEMBERED = 256;
const remembered = new Map<string, XmlNode>();

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value as object)) deepFreeze(child);
  }
  return value;
}

function messageIdOf(root: XmlNode): unknown {
  const envelope = root['Envelope'] as XmlNode | undefined;
  const header = envelope && typeof envelope === 'object' ? (envelope['Header'] as XmlNode | undefined) : undefined;
  return header && typeof header === 'object' ? header['MessageID'] : undefined;
}

/** Parses the request; throws as the parser does on malformed XML. */
export function parseRequest(xml: string): ParsedRequest {
  // Exactly one MessageID element (its start and end tag) with a plain value, else parsed as it is.
  const match = MESSAGE_ID.exec(xml);
  if (!match || xml.split('MessageID').length !== 3) return plainParse(xml);
  const key = xml.slice(0, match.index + match[1]!.length + 2) + PLACEHOLDER + xml.slice(match.index + match[1]!.length + 2 + match[2]!.length);
  let root = remembered.get(key);
  if (!root) {
    root = deepFreeze(parser.parse(key) as XmlNode);
    // Only a tree whose MessageID is the placeholder itself stands for every request of this text.
    if (messageIdOf(root) !== PLACEHOLDER) return plainParse(xml);
    if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
    remembered.set(key, root);
  }
  return { root, messageId: match[2] };
}

function plainParse(xml: string): ParsedRequest {
  return { root: parser.parse(xml) as XmlNode, messageId: undefined };
}
