/**
 * Builds the SOAP 1.2 / WS-Addressing / WS-Management request envelopes Intel AMT accepts:
 * Get, Put, Enumerate, Pull, Release and method invocations with `{Method}_INPUT` bodies.
 */
import { ACTION, ANONYMOUS, NS, methodAction, resourceUri } from './resource-uris.js';
import { escapeXml } from './xml-text.js';

/** Selector values identifying one instance (`w:SelectorSet`). */
export type Selectors = Readonly<Record<string, string>>;

/** A WS-Addressing endpoint reference to a CIM instance, e.g. `ManagedElement` of RequestPowerStateChange. */
export interface EndpointReference {
  /** Defaults to the anonymous role, as AMT expects. */
  readonly address?: string;
  /** Full resource URI of the referenced class. */
  readonly resourceUri: string;
  readonly selectors?: Selectors;
}

/** A property value in a Put body or a method input; arrays become repeated elements. */
export type InputValue = string | number | boolean | EndpointReference | readonly InputValue[];

/** Properties in document order (the order of the class schema, which AMT enforces). */
export type InputProperties = Readonly<Record<string, InputValue>>;

/** Everything an envelope needs; built by the helpers below. */
export interface WsmanRequest {
  readonly action: string;
  readonly resourceUri: string;
  readonly messageId: string;
  readonly selectors?: Selectors;
  /** The inner XML of `Body` (already escaped). */
  readonly body: string;
  /** `w:OperationTimeout`, default `PT60S`. */
  readonly operationTimeout?: string;
}

function isEndpointReference(value: InputValue): value is EndpointReference {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'resourceUri' in value;
}

function selectorSetXml(selectors: Selectors | undefined): string {
  if (!selectors) return '';
  const entries = Object.entries(selectors);
  if (entries.length === 0) return '';
  const inner = entries.map(([name, value]) => `<w:Selector Name="${escapeXml(name)}">${escapeXml(value)}</w:Selector>`).join('');
  return `<w:SelectorSet>${inner}</w:SelectorSet>`;
}

/** XML of an endpoint reference's content (Address + ReferenceParameters), without the wrapping element. */
export function endpointReferenceXml(epr: EndpointReference): string {
  return (
    `<a:Address>${escapeXml(epr.address ?? ANONYMOUS)}</a:Address>` +
    `<a:ReferenceParameters><w:ResourceURI>${escapeXml(epr.resourceUri)}</w:ResourceURI>` +
    `${selectorSetXml(epr.selectors)}</a:ReferenceParameters>`
  );
}

function checkName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) throw new Error(`invalid element name: ${name}`);
  return name;
}

function valueXml(name: string, value: InputValue): string {
  if (Array.isArray(value)) return (value as readonly InputValue[]).map((item) => valueXml(name, item)).join('');
  const tag = `h:${checkName(name)}`;
  if (isEndpointReference(value as InputValue)) return `<${tag}>${endpointReferenceXml(value as EndpointReference)}</${tag}>`;
  return `<${tag}>${escapeXml(String(value))}</${tag}>`;
}

function propertiesXml(properties: InputProperties): string {
  return Object.entries(properties)
    .map(([name, value]) => valueXml(name, value))
    .join('');
}

/**
 * Serialises a request into a SOAP 1.2 envelope with the header AMT expects: Action, To (`/wsman`),
 * ResourceURI, MessageID, ReplyTo (anonymous), OperationTimeout and an optional SelectorSet.
 */
export function buildEnvelope(request: WsmanRequest): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    `<Envelope xmlns="${NS.soap}" xmlns:a="${NS.addressing}" xmlns:w="${NS.wsman}">` +
    '<Header>' +
    `<a:Action>${escapeXml(request.action)}</a:Action>` +
    '<a:To>/wsman</a:To>' +
    `<w:ResourceURI>${escapeXml(request.resourceUri)}</w:ResourceURI>` +
    `<a:MessageID>${escapeXml(request.messageId)}</a:MessageID>` +
    `<a:ReplyTo><a:Address>${ANONYMOUS}</a:Address></a:ReplyTo>` +
    `<w:OperationTimeout>${request.operationTimeout ?? 'PT60S'}</w:OperationTimeout>` +
    selectorSetXml(request.selectors) +
    '</Header>' +
    `<Body>${request.body}</Body>` +
    '</Envelope>'
  );
}

/** A transfer Get of one instance (the singleton when `selectors` is omitted). */
export function getRequest(className: string, messageId: string, selectors?: Selectors): WsmanRequest {
  return { action: ACTION.get, resourceUri: resourceUri(className), messageId, selectors, body: '' };
}

/** A transfer Put replacing an instance with `properties`. */
export function putRequest(className: string, messageId: string, properties: InputProperties, selectors?: Selectors): WsmanRequest {
  const uri = resourceUri(className);
  const body = `<h:${className} xmlns:h="${uri}">${propertiesXml(properties)}</h:${className}>`;
  return { action: ACTION.put, resourceUri: uri, messageId, selectors, body };
}

/** Starts an enumeration of every instance of a class. */
export function enumerateRequest(className: string, messageId: string): WsmanRequest {
  return { action: ACTION.enumerate, resourceUri: resourceUri(className), messageId, body: `<Enumerate xmlns="${NS.enumeration}"/>` };
}

/** Pulls the next page of an enumeration. */
export function pullRequest(className: string, messageId: string, context: string, maxElements: number): WsmanRequest {
  const body =
    `<Pull xmlns="${NS.enumeration}"><EnumerationContext>${escapeXml(context)}</EnumerationContext>` +
    `<MaxElements>${Math.max(1, Math.floor(maxElements))}</MaxElements><MaxCharacters>99999</MaxCharacters></Pull>`;
  return { action: ACTION.pull, resourceUri: resourceUri(className), messageId, body };
}

/** Releases an enumeration context the client will not pull to the end. */
export function releaseRequest(className: string, messageId: string, context: string): WsmanRequest {
  const body = `<Release xmlns="${NS.enumeration}"><EnumerationContext>${escapeXml(context)}</EnumerationContext></Release>`;
  return { action: ACTION.release, resourceUri: resourceUri(className), messageId, body };
}

/** Invokes `{className}/{method}` with a `{method}_INPUT` body built from `input`. */
export function invokeRequest(
  className: string,
  method: string,
  messageId: string,
  input: InputProperties,
  selectors?: Selectors,
): WsmanRequest {
  const uri = resourceUri(className);
  const tag = `h:${checkName(method)}_INPUT`;
  const body = `<${tag} xmlns:h="${uri}">${propertiesXml(input)}</${tag}>`;
  return { action: methodAction(className, method), resourceUri: uri, messageId, selectors, body };
}
