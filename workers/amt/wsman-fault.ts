/** Recognises SOAP 1.2 Faults and turns them into typed errors carrying subcode and reason. */
import { AmtError } from './errors.js';
import { objectOf, textOf, type WsmanEnvelope, type WsmanObject } from './wsman-parse.js';

/** What a SOAP Fault says, prefixes stripped from the qualified names. */
export interface WsmanFaultInfo {
  /** `Sender` or `Receiver` (SOAP 1.2 code). */
  code: string | null;
  /** e.g. `DestinationUnreachable`, `ActionNotSupported`, `InvalidSelectors`. */
  subcode: string | null;
  reason: string | null;
  /** The WS-Man fault detail URI or text, when present. */
  detail: string | null;
}

function localName(qname: string | null): string | null {
  if (qname === null) return null;
  const colon = qname.lastIndexOf(':');
  return colon >= 0 ? qname.slice(colon + 1) : qname;
}

function deepestSubcode(code: WsmanObject | undefined): string | null {
  let sub = objectOf(code?.['Subcode']);
  let value: string | null = null;
  while (sub) {
    value = textOf(sub['Value']);
    sub = objectOf(sub['Subcode']);
  }
  return localName(value);
}

function firstText(node: WsmanObject | undefined): string | null {
  if (!node) return null;
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('@')) continue;
    const obj = objectOf(value);
    const text = obj ? firstText(obj) : textOf(value);
    if (text) return text;
  }
  return null;
}

/** The fault in an envelope's body, or null when the body is not a Fault. */
export function faultOf(env: WsmanEnvelope): WsmanFaultInfo | null {
  const fault = objectOf(env.body['Fault']);
  if (!fault) return null;
  const code = objectOf(fault['Code']);
  const reason = objectOf(fault['Reason']);
  const detailNode = fault['Detail'];
  const detail = objectOf(detailNode) ? firstText(objectOf(detailNode)) : textOf(detailNode);
  return {
    code: localName(textOf(code?.['Value'])),
    subcode: deepestSubcode(code),
    reason: textOf(reason?.['Text']) ?? textOf(fault['Reason']),
    detail: detail === '' ? null : detail,
  };
}

/** An `AMT_ERR_FAULT` error for a fault, with a message naming the subcode and the reason. */
export function faultError(fault: WsmanFaultInfo, status?: number): AmtError {
  const subcode = fault.subcode ?? fault.code ?? 'Fault';
  // Device-supplied text is cut short so a hostile device cannot flood logs through error messages.
  const reason = fault.reason ? fault.reason.slice(0, 300) : undefined;
  return new AmtError('AMT_ERR_FAULT', `WS-Management fault ${subcode}${reason ? `: ${reason}` : ''}`, {
    subcode,
    ...(reason !== undefined ? { reason } : {}),
    ...(status !== undefined ? { status } : {}),
  });
}
