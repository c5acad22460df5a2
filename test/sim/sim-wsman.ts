/**
 * The WS-Management service of a simulated device: Get, Put (AMT_GeneralSettings), Enumerate, Pull,
 * Release and the methods the gateway calls. Unknown classes get a 400 DestinationUnreachable Fault.
 */
import { randomBytes } from 'node:crypto';
import { nextMessageId, type DeviceState } from './device-state.js';
import { availablePowerStates, ENUMERABLE, GETTABLE, PULL_SHAPES } from './sim-classes.js';
import type { Override } from './answers/answer-templates.js';
import { pullKeepsContextAtEnd } from './answers/answer-templates.js';
import { outputTemplate } from './answers/method-outputs.js';
import { REDIRECTION_INSTANCES, REDIRECTION_METHODS, REDIRECTION_PUTS, type InputReader } from './redirection/redir-wsman.js';
import { parseRequest } from './sim-request-parse.js';
import {
  classUri,
  envelope,
  ENUMERATION_NAMESPACES,
  FAULTS,
  faultEnvelope,
  instanceNamespaces,
  instanceXml,
  NS,
  prefixesOf,
  pullNamespaces,
  type AnswerNamespaces,
  type FaultSpec,
  type SimInstance,
} from './sim-xml.js';

export interface WsmanReply {
  status: number;
  body: string;
}

type Node = Record<string, unknown>;

const MAX_ENUMERATIONS = 32;
const ENUMERATION_TTL_MS = 60_000;

function obj(value: unknown): Node | undefined {
  if (Array.isArray(value)) return obj(value[0]);
  return value && typeof value === 'object' ? (value as Node) : undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return text(value[0]);
  const o = obj(value);
  return o && typeof o['#text'] === 'string' ? (o['#text'] as string) : undefined;
}

function selectorsOf(header: Node): Record<string, string> {
  const out: Record<string, string> = {};
  const set = obj(header['SelectorSet']);
  const list = set?.['Selector'];
  for (const sel of Array.isArray(list) ? list : list ? [list] : []) {
    const o = obj(sel);
    const name = o?.['@Name'];
    if (typeof name === 'string') out[name] = text(sel) ?? '';
  }
  return out;
}

/** Handles one request body; never throws (malformed requests get a Fault). */
export function handleWsman(state: DeviceState, xml: string): WsmanReply {
  let root: Node;
  let messageId: string | undefined;
  try {
    ({ root, messageId } = parseRequest(xml));
  } catch {
    return fault(state, FAULTS.invalidParameter, '');
  }
  const env = obj(root['Envelope']);
  const header = obj(env?.['Header']) ?? {};
  const body = obj(env?.['Body']) ?? {};
  const action = text(header['Action']) ?? '';
  const uri = text(header['ResourceURI']) ?? '';
  const relatesTo = messageId ?? text(header['MessageID']) ?? '';
  const className = uri.slice(uri.lastIndexOf('/') + 1);
  const ctx: Ctx = { state, action, uri, className, relatesTo, body, selectors: selectorsOf(header) };
  if (className === 'CIM_AssociatedPowerManagementService' && !state.config.powerAssociationGet) return fault(state, FAULTS.destinationUnreachable, relatesTo);
  if (uri !== classUri(className) || !(className in ENUMERABLE || className in GETTABLE || className in METHODS_BY_CLASS || className in REDIRECTION_INSTANCES)) {
    return fault(state, FAULTS.destinationUnreachable, relatesTo);
  }
  switch (action) {
    case 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Get':
      return get(ctx);
    case 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Put':
      return put(ctx);
    case `${NS.enumeration}/Enumerate`:
      return enumerate(ctx);
    case `${NS.enumeration}/Pull`:
      return pull(ctx);
    case `${NS.enumeration}/Release`:
      state.enumerations.delete(text(obj(body['Release'])?.['EnumerationContext']) ?? '');
      // WS-Enumeration's ReleaseResponse has an empty Body (no vector holds one).
      return ok(ctx, `${NS.enumeration}/ReleaseResponse`, '', ENUMERATION_NAMESPACES);
  }
  const method = action.startsWith(`${uri}/`) ? action.slice(uri.length + 1) : '';
  const redirectionMethod = REDIRECTION_METHODS[className]?.[method];
  if (redirectionMethod) return methodOutput(ctx, method, { ReturnValue: redirectionMethod(state, inputReader(obj(body[`${method}_INPUT`]) ?? {})) });
  const handler = METHODS_BY_CLASS[className]?.[method];
  if (!handler) return fault(state, FAULTS.actionNotSupported, relatesTo);
  return handler(ctx, obj(body[`${method}_INPUT`]) ?? {});
}

interface Ctx {
  state: DeviceState;
  action: string;
  uri: string;
  className: string;
  relatesTo: string;
  body: Node;
  selectors: Record<string, string>;
}

function fault(state: DeviceState, spec: FaultSpec, relatesTo: string): WsmanReply {
  return { status: 400, body: faultEnvelope(spec, relatesTo, nextMessageId(state)) };
}

function ok(ctx: Ctx, action: string, body: string, namespaces: AnswerNamespaces): WsmanReply {
  return { status: 200, body: envelope({ action, relatesTo: ctx.relatesTo, messageId: nextMessageId(ctx.state), resourceUri: ctx.uri, namespaces, body }) };
}

/** A Get or Put answer: the instance, `g:` its class. */
function instanceAnswer(ctx: Ctx, action: string, instance: SimInstance): WsmanReply {
  const namespaces = instanceNamespaces(instance.className, instance.declaresCommon);
  return ok(ctx, action, instanceXml('g', instance, prefixesOf(namespaces)), namespaces);
}

function get(ctx: Ctx): WsmanReply {
  let instance: SimInstance | undefined;
  const instanceId = ctx.selectors['InstanceID'];
  if (instanceId !== undefined) {
    instance = ENUMERABLE[ctx.className]?.(ctx.state).find((i) => i.props.some(([k, v]) => k === 'InstanceID' && v === instanceId));
    if (!instance) return fault(ctx.state, FAULTS.invalidSelectors, ctx.relatesTo);
  } else {
    instance = GETTABLE[ctx.className]?.(ctx.state) ?? REDIRECTION_INSTANCES[ctx.className]?.(ctx.state) ?? ENUMERABLE[ctx.className]?.(ctx.state)[0];
  }
  if (!instance) return fault(ctx.state, FAULTS.actionNotSupported, ctx.relatesTo);
  return instanceAnswer(ctx, 'http://schemas.xmlsoap.org/ws/2004/09/transfer/GetResponse', instance);
}

/** Reads a Put body's or a method input's fields. */
function inputReader(input: Node): InputReader {
  return {
    text: (name) => text(input[name]),
    selectors(name) {
      const ref = obj(input[name]);
      const params = obj(ref?.['ReferenceParameters']);
      return params ? selectorsOf(params) : undefined;
    },
  };
}

const PUT_RESPONSE = 'http://schemas.xmlsoap.org/ws/2004/09/transfer/PutResponse';

/**
 * A Put's answer: the instance as stored, as most of the vectors' Put answers are
 * (amt/redirectionservice/put.xml), or, on a device set to `empty-put-answers`, an empty Body, as
 * others are (amt/mps/put.xml).
 */
function putAnswer(ctx: Ctx, instance: SimInstance): WsmanReply {
  if (ctx.state.misbehaviour !== 'empty-put-answers') return instanceAnswer(ctx, PUT_RESPONSE, instance);
  return ok(ctx, PUT_RESPONSE, '', instanceNamespaces(instance.className, instance.declaresCommon));
}

function put(ctx: Ctx): WsmanReply {
  const redirectionPut = REDIRECTION_PUTS[ctx.className];
  if (redirectionPut) {
    if (!redirectionPut(ctx.state, inputReader(obj(ctx.body[ctx.className]) ?? {}))) return fault(ctx.state, FAULTS.invalidParameter, ctx.relatesTo);
    return putAnswer(ctx, REDIRECTION_INSTANCES[ctx.className]!(ctx.state));
  }
  if (ctx.className !== 'AMT_GeneralSettings') return fault(ctx.state, FAULTS.actionNotSupported, ctx.relatesTo);
  const input = obj(ctx.body['AMT_GeneralSettings']) ?? {};
  const host = text(input['HostName']);
  const domain = text(input['DomainName']);
  if (host !== undefined) ctx.state.hostname = host;
  if (domain !== undefined) ctx.state.domain = domain;
  return putAnswer(ctx, GETTABLE['AMT_GeneralSettings']!(ctx.state));
}

function enumerate(ctx: Ctx): WsmanReply {
  const items = ENUMERABLE[ctx.className]?.(ctx.state);
  if (!items) return fault(ctx.state, FAULTS.actionNotSupported, ctx.relatesTo);
  const { enumerations } = ctx.state;
  const now = Date.now();
  for (const [id, e] of enumerations) if (now - e.createdAt > ENUMERATION_TTL_MS) enumerations.delete(id);
  while (enumerations.size >= MAX_ENUMERATIONS) enumerations.delete(enumerations.keys().next().value as string);
  const id = `${randomBytes(4).toString('hex').toUpperCase()}-0000-0000-0000-000000000000`;
  enumerations.set(id, { items, offset: 0, createdAt: now });
  return ok(ctx, `${NS.enumeration}/EnumerateResponse`, `<g:EnumerateResponse><g:EnumerationContext>${id}</g:EnumerationContext></g:EnumerateResponse>`, ENUMERATION_NAMESPACES);
}

function pull(ctx: Ctx): WsmanReply {
  const input = obj(ctx.body['Pull']) ?? {};
  const id = text(input['EnumerationContext']) ?? '';
  const enumeration = ctx.state.enumerations.get(id);
  if (!enumeration) return fault(ctx.state, FAULTS.invalidEnumerationContext, ctx.relatesTo);
  const asked = Number.parseInt(text(input['MaxElements']) ?? '1', 10);
  const take = Math.max(1, Math.min(Number.isFinite(asked) ? asked : 1, ctx.state.config.pageSize));
  const page = enumeration.items.slice(enumeration.offset, enumeration.offset + take);
  enumeration.offset += page.length;
  const end = enumeration.offset >= enumeration.items.length;
  if (end) ctx.state.enumerations.delete(id);
  const primary = page[0]?.className ?? ctx.className;
  const namespaces = pullNamespaces(primary, page[0]?.declaresCommon);
  const prefixes = prefixesOf(namespaces);
  const items = page.map((item) => (item.className === primary ? instanceXml('h', item, prefixes) : instanceXml('j', item, prefixes, true))).join('');
  // Some firmware keeps the context on the last page, beside EndOfSequence (as the class's vector shows).
  const shape = PULL_SHAPES[ctx.className];
  const context = !end || (shape !== undefined && pullKeepsContextAtEnd(shape));
  const body =
    '<g:PullResponse>' +
    (context ? `<g:EnumerationContext>${id}</g:EnumerationContext>` : '') +
    `<g:Items>${items}</g:Items>` +
    (end ? '<g:EndOfSequence></g:EndOfSequence>' : '') +
    '</g:PullResponse>';
  return ok(ctx, `${NS.enumeration}/PullResponse`, body, namespaces);
}

type MethodHandler = (ctx: Ctx, input: Node) => WsmanReply;

/** A method's answer: its `{Method}_OUTPUT` template with the values given, under the template's Action. */
function methodOutput(ctx: Ctx, method: string, values: Readonly<Record<string, Override>>): WsmanReply {
  const template = outputTemplate(ctx.className, method);
  const output = template.with(values);
  const namespaces = instanceNamespaces(ctx.className, output.declaresCommon);
  return ok(ctx, template.action || `${ctx.uri}/${method}Response`, instanceXml('g', output, prefixesOf(namespaces)), namespaces);
}

/** Power state transitions of `RequestPowerStateChange`, by requested value. */
const POWER_RESULT: Record<number, (current: number) => number> = {
  2: () => 2,
  4: () => 4,
  5: () => 2,
  7: () => 7,
  8: () => 8,
  10: () => 2,
  11: (current) => current,
  12: () => 8,
  14: () => 2,
};

const METHODS_BY_CLASS: Record<string, Record<string, MethodHandler>> = {
  CIM_PowerManagementService: {
    RequestPowerStateChange(ctx, input) {
      const requested = Number.parseInt(text(input['PowerState']) ?? '', 10);
      const element = obj(input['ManagedElement']);
      if (!Number.isInteger(requested) || !element) return fault(ctx.state, FAULTS.invalidParameter, ctx.relatesTo);
      const transition = POWER_RESULT[requested];
      if (!transition || !availablePowerStates(ctx.state.powerState).includes(requested)) {
        return methodOutput(ctx, 'RequestPowerStateChange', { ReturnValue: 2 });
      }
      ctx.state.counters.powerChanges++;
      // Firmware accepts power-off while a KVM session is open, and does nothing.
      const off = transition(ctx.state.powerState) === 8;
      if (off && ctx.state.redirection.open.has('kvm')) return methodOutput(ctx, 'RequestPowerStateChange', { ReturnValue: 0 });
      const wasOff = ctx.state.powerState !== 2;
      ctx.state.powerState = transition(ctx.state.powerState);
      if (wasOff !== (ctx.state.powerState !== 2)) ctx.state.redirection.solHost.power(ctx.state.powerState === 2);
      // A reset, a power cycle or a power-on boots, using up the one-time boot setting.
      if (requested === 10 || requested === 5 || requested === 14 || (requested === 2 && wasOff)) ctx.state.redirection.reset();
      return methodOutput(ctx, 'RequestPowerStateChange', { ReturnValue: 0 });
    },
  },
  AMT_MessageLog: {
    PositionToFirstRecord(ctx) {
      return methodOutput(ctx, 'PositionToFirstRecord', { IterationIdentifier: 1, ReturnValue: 0 });
    },
    GetRecords(ctx, input) {
      const start = Number.parseInt(text(input['IterationIdentifier']) ?? '1', 10);
      const max = Number.parseInt(text(input['MaxReadRecords']) ?? '390', 10);
      if (!Number.isInteger(start) || start < 1 || !Number.isInteger(max) || max < 1) return fault(ctx.state, FAULTS.invalidParameter, ctx.relatesTo);
      const records = ctx.state.eventRecords.slice(start - 1, start - 1 + Math.min(max, ctx.state.config.pageSize));
      const next = start + records.length;
      return methodOutput(ctx, 'GetRecords', { IterationIdentifier: next, NoMoreRecords: next > ctx.state.eventRecords.length, RecordArray: records, ReturnValue: 0 });
    },
  },
};
