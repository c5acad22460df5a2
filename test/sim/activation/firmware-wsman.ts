/**
 * The firmware's WS-Management: the calls activation changes are answered here (firmware-setup.ts,
 * firmware-remote-access.ts) as their vectors show them; every other request goes to the fleet
 * simulator's device, kept in step (general settings, software identity, power, redirection).
 */
import { nextMessageId } from '../device-state.js';
import { parseRequest } from '../sim-request-parse.js';
import { classUri, envelope, FAULTS, faultEnvelope, instanceNamespaces, instanceXml, prefixesOf, type FaultSpec } from '../sim-xml.js';
import { handleWsman, type WsmanReply } from '../sim-wsman.js';
import type { CallAnswer, FirmwareCall } from './firmware-calls.js';
import { AUTHORIZATION_CALLS, HOST_BASED_SETUP_CALLS, SETUP_AND_CONFIGURATION_CALLS, TIME_CALLS } from './firmware-setup.js';
import { DETECTION_CALLS, PUBLIC_KEY_CALLS, REMOTE_ACCESS_CALLS, USER_INITIATED_CALLS } from './firmware-remote-access.js';
import { ADMIN_USER, type FirmwareState } from './firmware-state.js';
import { callInput, node, textOf } from './firmware-text.js';

const CALLS: Record<string, Record<string, FirmwareCall>> = {
  IPS_HostBasedSetupService: HOST_BASED_SETUP_CALLS,
  AMT_SetupAndConfigurationService: SETUP_AND_CONFIGURATION_CALLS,
  AMT_AuthorizationService: AUTHORIZATION_CALLS,
  AMT_TimeSynchronizationService: TIME_CALLS,
  AMT_PublicKeyManagementService: PUBLIC_KEY_CALLS,
  AMT_RemoteAccessService: REMOTE_ACCESS_CALLS,
  AMT_UserInitiatedConnectionService: USER_INITIATED_CALLS,
  AMT_EnvironmentDetectionSettingData: DETECTION_CALLS,
};

const ACCESS_DENIED: FaultSpec = { code: 'Sender', subcode: 'c:AccessDenied', reason: 'The sender was not authorized to access the resource.' };
const TRANSFER = 'http://schemas.xmlsoap.org/ws/2004/09/transfer';

/** One request as signed in by `username`; also says which call it was (`Class.Method`, `Class.Get`). */
export function handleFirmwareWsman(fw: FirmwareState, xml: string, username: string): WsmanReply & { call: string; ok: boolean } {
  let parsed;
  try {
    parsed = parseRequest(xml);
  } catch {
    return { ...handleWsman(fw.device, xml), call: 'unparsed', ok: false };
  }
  const env = node(parsed.root['Envelope']);
  const header = node(env?.['Header']) ?? {};
  const body = node(env?.['Body']) ?? {};
  const action = textOf(header['Action']) ?? '';
  const uri = textOf(header['ResourceURI']) ?? '';
  const relatesTo = parsed.messageId ?? textOf(header['MessageID']) ?? '';
  const className = uri.slice(uri.lastIndexOf('/') + 1);
  const op = action === `${TRANSFER}/Get` ? 'Get' : action === `${TRANSFER}/Put` ? 'Put' : action.startsWith(`${uri}/`) ? action.slice(uri.length + 1) : action;
  const call = `${className}.${op}`;
  fw.calls.set(call, (fw.calls.get(call) ?? 0) + 1);
  const handler = uri === classUri(className) ? CALLS[className]?.[op] : undefined;
  const messageId = nextMessageId(fw.device);
  if (!handler) {
    const reply = handleWsman(fw.device, xml);
    return { ...reply, call, ok: reply.status === 200 };
  }
  const allowed = handler.who === 'any' || (handler.who === 'admin' ? username === ADMIN_USER : username === fw.options.localAccount.username);
  if (!allowed) return { status: 400, body: faultEnvelope(ACCESS_DENIED, relatesTo, messageId), call, ok: false };
  const input = callInput(node(op === 'Put' ? body[className] : body[`${op}_INPUT`]) ?? {});
  const answer: CallAnswer = handler.run(fw, input);
  if ('fault' in answer) return { status: 400, body: faultEnvelope(FAULTS[answer.fault], relatesTo, messageId), call, ok: false };
  const namespaces = instanceNamespaces(className);
  if ('instance' in answer) {
    return { status: 200, body: envelope({ action: `${TRANSFER}/${op}Response`, relatesTo, messageId, resourceUri: uri, namespaces, body: instanceXml('g', answer.instance, prefixesOf(namespaces)) }), call, ok: true };
  }
  const output = instanceXml('g', { className: `${op}_OUTPUT`, props: answer.output }, prefixesOf(namespaces));
  const ok = answer.output.some(([name, value]) => name === 'ReturnValue' && value === 0);
  return { status: 200, body: envelope({ action: `${uri}/${op}Response`, relatesTo, messageId, resourceUri: uri, namespaces, body: output }), call, ok };
}
