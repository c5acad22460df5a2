/**
 * The SignalR JSON hub protocol, version 1: handshake, record separator framing and the message
 * shapes this hub reads and writes. Pure functions; no I/O.
 */

/** Ends every handshake and hub message (ASCII RS). */
export const RECORD_SEPARATOR = '\x1e';

/** SignalR message types (`type` field). */
export const MessageType = {
  Invocation: 1,
  StreamItem: 2,
  Completion: 3,
  StreamInvocation: 4,
  CancelInvocation: 5,
  Ping: 6,
  Close: 7,
  Ack: 8,
  Sequence: 9,
} as const;

/** The only hub protocol this hub speaks. */
export const PROTOCOL_NAME = 'json';
export const PROTOCOL_VERSION = 1;

/** An Invocation a client sent: a call of a hub method, answered with a Completion when it has an `invocationId`. */
export interface InvocationMessage {
  type: typeof MessageType.Invocation;
  invocationId?: string;
  target: string;
  arguments: unknown[];
}

/** What the hub does with one client message. */
export type ClientMessage =
  | InvocationMessage
  | { type: typeof MessageType.StreamInvocation; invocationId: string; target: string }
  | { type: typeof MessageType.Ping }
  | { type: typeof MessageType.Close; error?: string }
  /** Types this hub neither needs nor answers (StreamItem, Completion, CancelInvocation, Ack, future ones): skipped, as ASP.NET Core does. */
  | { type: 'ignored' };

/** A message the hub cannot make sense of; the connection ends with a Close carrying `message`. */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
}

/** Encodes one message as a record: JSON + RS, as the UTF-8 bytes one text frame carries. */
export function encodeRecord(message: object): Buffer {
  return Buffer.from(JSON.stringify(message) + RECORD_SEPARATOR, 'utf8');
}

/** A non-blocking Invocation of a client method (no invocationId: the client sends no Completion). */
export function invocationRecord(target: string, argument: unknown): Buffer {
  return encodeRecord({ type: MessageType.Invocation, target, arguments: [argument] });
}

/** Completion of a client's invocation: a result, or an error message. */
export function completionRecord(invocationId: string, outcome: { result: unknown } | { error: string }): Buffer {
  return encodeRecord({ type: MessageType.Completion, invocationId, ...outcome });
}

/** The keep-alive ping. */
export const PING_RECORD: Buffer = encodeRecord({ type: MessageType.Ping });

/** A Close message; with `allowReconnect` the SignalR client reconnects automatically (when configured to). */
export function closeRecord(options: { error?: string; allowReconnect?: boolean } = {}): Buffer {
  return encodeRecord({ type: MessageType.Close, ...(options.error ? { error: options.error } : {}), ...(options.allowReconnect ? { allowReconnect: true } : {}) });
}

/** The handshake answer: `{}` on success, `{"error": ...}` on refusal. */
export function handshakeResponseRecord(error?: string): Buffer {
  return encodeRecord(error ? { error } : {});
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProtocolError(`the ${what} is not valid JSON`);
  }
}

/**
 * Checks a handshake request (one record, separator removed).
 * Returns null when it is accepted, else the error the handshake answer carries.
 */
export function checkHandshake(text: string): string | null {
  let request: unknown;
  try {
    request = parseJson(text, 'handshake request');
  } catch (err) {
    return (err as Error).message;
  }
  if (!isObject(request) || typeof request.protocol !== 'string' || typeof request.version !== 'number') {
    return 'the handshake request must be {"protocol": string, "version": number}';
  }
  if (request.protocol !== PROTOCOL_NAME) return `The protocol '${request.protocol.slice(0, 64)}' is not supported.`;
  if (request.version !== PROTOCOL_VERSION) return `The server does not support version ${request.version} of the '${PROTOCOL_NAME}' protocol.`;
  return null;
}

/** Parses one hub message (one record, separator removed); throws {@link ProtocolError} on a malformed one. */
export function parseClientMessage(text: string): ClientMessage {
  const message = parseJson(text, 'message');
  if (!isObject(message) || typeof message.type !== 'number') throw new ProtocolError('a message must be a JSON object with a numeric "type"');
  const invocationId = message.invocationId;
  if (invocationId !== undefined && typeof invocationId !== 'string') throw new ProtocolError('"invocationId" must be a string');
  switch (message.type) {
    case MessageType.Invocation: {
      if (typeof message.target !== 'string' || !Array.isArray(message.arguments)) {
        throw new ProtocolError('an Invocation needs a string "target" and an "arguments" array');
      }
      return { type: MessageType.Invocation, target: message.target, arguments: message.arguments, ...(invocationId === undefined ? {} : { invocationId }) };
    }
    case MessageType.StreamInvocation:
      if (invocationId === undefined || typeof message.target !== 'string') throw new ProtocolError('a StreamInvocation needs an "invocationId" and a "target"');
      return { type: MessageType.StreamInvocation, invocationId, target: message.target };
    case MessageType.Ping:
      return { type: MessageType.Ping };
    case MessageType.Close:
      return { type: MessageType.Close, ...(typeof message.error === 'string' ? { error: message.error } : {}) };
    default:
      // StreamItem and Completion answer nothing here (the hub takes no client streams or results).
      return { type: 'ignored' };
  }
}
