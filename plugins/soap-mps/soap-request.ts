import { SoapFault } from './errors.js';
import { SOAP11_NS } from './soap-envelope.js';
import { parseXmlSafely, type XmlElement } from './xml-guard.js';

const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';

/** The operations of MPSInterfaceService, by request element name. */
export const OPERATIONS = ['IsMachineConnected', 'EnumerateConnectedMachines', 'Pull', 'Release', 'SubscribeForNotifications', 'Unsubscribe'] as const;
export type OperationName = (typeof OPERATIONS)[number];

/** A request checked against the element shapes of the specification, values typed. */
export type SoapRequest =
  | { operation: 'IsMachineConnected'; systemName: string }
  | { operation: 'EnumerateConnectedMachines' }
  | { operation: 'Pull'; context: string; maxElements: number | undefined }
  | { operation: 'Release'; context: string }
  | { operation: 'SubscribeForNotifications'; delivery: string }
  | { operation: 'Unsubscribe'; delivery: string };

interface Particle {
  name: string;
  min: number;
  max: number;
}

/** The element content of each request element (specification, part 2), as XSD sequences. */
const SEQUENCE = {
  Envelope: [{ name: 'Header', min: 0, max: 1 }, { name: 'Body', min: 1, max: 1 }],
  IsMachineConnected: [{ name: 'Machine', min: 1, max: 1 }],
  Machine: [{ name: 'SystemName', min: 1, max: 1 }],
  EnumerateConnectedMachines: [],
  Pull: [{ name: 'EnumerationContext', min: 1, max: 1 }, { name: 'MaxElements', min: 0, max: 1 }],
  Release: [{ name: 'EnumerationContext', min: 1, max: 1 }],
  SubscribeForNotifications: [{ name: 'Delivery', min: 1, max: 1 }], // Unsubscribe's content too
} satisfies Record<string, readonly Particle[]>;

const invalid = (message: string) => new SoapFault('GW_ERR_SOAP_INVALID_MESSAGE', message);
const short = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}...` : text);

/**
 * Reads the children of `element` as the XSD sequence `particles` in namespace `ns`, followed by
 * extension elements from other namespaces when `extensions` is set (xs:any ##other, ignored).
 */
function readSequence(element: XmlElement, ns: string, particles: readonly Particle[], extensions: boolean): Map<string, XmlElement[]> {
  const found = new Map<string, XmlElement[]>(particles.map((p) => [p.name, []]));
  const where = element.local;
  if (element.text.trim() !== '') throw invalid(`${where} must not contain text`);
  let next = 0;
  let extensionSeen = false;
  for (const child of element.children) {
    if (child.ns !== ns) {
      if (child.ns === '') throw invalid(`element ${short(child.local)} in ${where} must be in namespace ${ns}`);
      if (!extensions) throw invalid(`${where} does not accept extension elements (found {${short(child.ns)}}${short(child.local)})`);
      extensionSeen = true;
      continue;
    }
    const index = particles.findIndex((p, i) => i >= next && p.name === child.local);
    if (index < 0 || extensionSeen) {
      const known = particles.some((p) => p.name === child.local);
      throw invalid(known ? `element ${child.local} in ${where} is out of order or repeated` : `unexpected element ${short(child.local)} in ${where}`);
    }
    for (const skipped of particles.slice(next, index)) {
      if (found.get(skipped.name)!.length < skipped.min) throw invalid(`${where} needs a ${skipped.name} element before ${child.local}`);
    }
    next = index;
    const list = found.get(child.local)!;
    if (list.length >= particles[index]!.max) throw invalid(`${where} allows at most ${particles[index]!.max} ${child.local} element(s)`);
    list.push(child);
  }
  for (const particle of particles) {
    if (found.get(particle.name)!.length < particle.min) throw invalid(`${where} needs a ${particle.name} element`);
  }
  return found;
}

function text(element: XmlElement): string {
  if (element.children.length > 0) throw invalid(`${element.local} must contain text only, not elements`);
  return element.text;
}

function one(found: Map<string, XmlElement[]>, name: string): XmlElement {
  return found.get(name)![0]!;
}

function positiveInteger(element: XmlElement): number {
  const value = text(element).trim();
  const digits = /^\+?0*(\d+)$/.exec(value)?.[1];
  if (digits === undefined || digits === '0') throw invalid(`MaxElements must be a positive integer (1 or greater), not '${short(value)}'`);
  return digits.length > 15 ? Number.MAX_SAFE_INTEGER : Number(digits);
}

function anyUri(element: XmlElement): string {
  return text(element).replace(/\s+/g, ' ').trim();
}

function readOperation(op: XmlElement, ns: string): SoapRequest {
  const operation = op.local as OperationName;
  switch (operation) {
    case 'IsMachineConnected': {
      const machine = one(readSequence(op, ns, SEQUENCE.IsMachineConnected, true), 'Machine');
      const systemName = one(readSequence(machine, ns, SEQUENCE.Machine, true), 'SystemName');
      return { operation, systemName: text(systemName).trim() };
    }
    case 'EnumerateConnectedMachines':
      readSequence(op, ns, SEQUENCE.EnumerateConnectedMachines, false);
      return { operation };
    case 'Pull': {
      const found = readSequence(op, ns, SEQUENCE.Pull, true);
      const max = found.get('MaxElements')![0];
      return { operation, context: one(found, 'EnumerationContext').text.trim(), maxElements: max ? positiveInteger(max) : undefined };
    }
    case 'Release':
      return { operation, context: one(readSequence(op, ns, SEQUENCE.Release, false), 'EnumerationContext').text.trim() };
    case 'SubscribeForNotifications':
    case 'Unsubscribe':
      return { operation, delivery: anyUri(one(readSequence(op, ns, SEQUENCE.SubscribeForNotifications, true), 'Delivery')) };
  }
}

/**
 * Parses a SOAP 1.1 request safely and checks it against the service: the envelope, headers the
 * service must understand, the SOAPAction, one operation element in namespace `ns` and its shape.
 */
export function readSoapRequest(xml: string, ns: string, soapAction: string | undefined): SoapRequest {
  const envelope = parseXmlSafely(xml);
  if (envelope.local !== 'Envelope' || (envelope.ns !== SOAP11_NS && envelope.ns !== SOAP12_NS)) {
    throw new SoapFault('GW_ERR_SOAP_ENVELOPE', `the root element must be a SOAP 1.1 Envelope ({${SOAP11_NS}}Envelope)`);
  }
  if (envelope.ns !== SOAP11_NS) throw new SoapFault('GW_ERR_SOAP_VERSION', `only SOAP 1.1 (${SOAP11_NS}) is supported`);
  const parts = readSequence(envelope, SOAP11_NS, SEQUENCE.Envelope, false);
  for (const block of parts.get('Header')![0]?.children ?? []) {
    const must = block.attributes.find((a) => a.ns === SOAP11_NS && a.local === 'mustUnderstand');
    if (must && must.value.trim() === '1') {
      throw new SoapFault('GW_ERR_SOAP_MUST_UNDERSTAND', `header {${short(block.ns)}}${short(block.local)} is not understood`);
    }
  }
  const body = one(parts, 'Body');
  if (body.text.trim() !== '') throw new SoapFault('GW_ERR_SOAP_ENVELOPE', 'the SOAP Body must not contain text');
  if (body.children.length !== 1) throw new SoapFault('GW_ERR_SOAP_ENVELOPE', `the SOAP Body must hold exactly one operation element, not ${body.children.length}`);
  const op = body.children[0]!;
  if (op.ns !== ns || !(OPERATIONS as readonly string[]).includes(op.local)) {
    throw new SoapFault('GW_ERR_SOAP_UNKNOWN_OPERATION', `unknown operation {${short(op.ns)}}${short(op.local)}; operations are ${OPERATIONS.join(', ')} in namespace ${ns}`);
  }
  const action = soapAction?.trim().replace(/^"(.*)"$/, '$1');
  if (action && action !== `${ns}/${op.local}`) {
    throw new SoapFault('GW_ERR_SOAP_ACTION', `SOAPAction '${short(action)}' does not match the operation; expected ${ns}/${op.local}`);
  }
  return readOperation(op, ns);
}
