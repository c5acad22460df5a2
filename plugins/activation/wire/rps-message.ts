/**
 * The JSON messages of RPS's WebSocket protocol as rpc-go 2.x speaks it (PROTOCOL.md): one envelope
 * both ways, `{method, apiKey, appVersion, protocolVersion, status, message, payload, tenantId}`,
 * whose `payload` is base64 (the agent's facts in its first message, a whole HTTP message in a relayed
 * request or response). Parsing never trusts the agent: sizes, types and versions are checked here.
 */
import { ActivationErrors } from '../errors.js';

/** The protocol version this server speaks (rpc-go 2.x sends 4.0.0). */
export const PROTOCOL_VERSION = '4.0.0';

/** Methods the server sends. */
export type ServerMethod = 'wsman' | 'success' | 'error' | 'heartbeat_request' | 'progress';

/** One message as it travels, either way. */
export interface RpsEnvelope {
  method: string;
  apiKey: string;
  appVersion: string;
  protocolVersion: string;
  status: string;
  message: string;
  payload: string | null;
  tenantId: string;
}

/** The server's messages, in RPS's shape (its `ClientResponseMsg`). */
export function serverMessage(method: ServerMethod, status: 'ok' | 'success' | 'failed' | 'heartbeat', options: { message?: string; payload?: Buffer } = {}): string {
  const envelope: RpsEnvelope = {
    method,
    apiKey: 'xxxxx',
    appVersion: 'amt-gateway',
    protocolVersion: PROTOCOL_VERSION,
    status,
    message: options.message ?? '',
    // A heartbeat carries an empty payload; success and error none; a relayed request its bytes.
    payload: options.payload ? options.payload.toString('base64') : method === 'heartbeat_request' ? '' : null,
    tenantId: '',
  };
  return JSON.stringify(envelope);
}

/** Compatible as RPS judges it: the same major, and a minor (or, at our minor, a revision) not above ours. */
export function protocolCompatible(version: string): boolean {
  const parse = (text: string) => {
    const parts = text.split('.');
    if (parts.length < 1 || parts.length > 3 || !parts.every((p) => /^\d{1,6}$/.test(p))) return null;
    const [major = 0, minor = 0, revision = 0] = parts.map(Number);
    return { major, minor, revision };
  };
  const ours = parse(PROTOCOL_VERSION)!;
  const theirs = parse(version);
  if (!theirs || theirs.major !== ours.major) return false;
  return theirs.minor < ours.minor || (theirs.minor === ours.minor && theirs.revision <= ours.revision);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One message from an agent: the envelope, checked for shape, its protocol version checked.
 * @throws the coded problem `GW_ERR_ACTIVATION_BAD_MESSAGE` (or `..._PROTOCOL_VERSION`), whose text names no value the agent sent
 */
export function parseAgentMessage(text: string): RpsEnvelope {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw ActivationErrors.badMessage('not JSON');
  }
  if (!isRecord(value)) throw ActivationErrors.badMessage('not a JSON object');
  const field = (name: string, required: boolean): string => {
    const v = value[name];
    if (v === undefined || v === null) {
      if (required) throw ActivationErrors.badMessage(`no ${name}`);
      return '';
    }
    if (typeof v !== 'string') throw ActivationErrors.badMessage(`${name} is not text`);
    return v;
  };
  const envelope: RpsEnvelope = {
    method: field('method', true),
    apiKey: field('apiKey', false),
    appVersion: field('appVersion', false),
    protocolVersion: field('protocolVersion', false),
    status: field('status', false),
    message: field('message', false),
    payload: field('payload', false),
    tenantId: field('tenantId', false),
  };
  if (envelope.method.length > 4096) throw ActivationErrors.badMessage('method too long');
  // rpc-go always names its version; RPS skips the check when it is absent, we do not.
  if (!protocolCompatible(envelope.protocolVersion)) throw ActivationErrors.protocolVersion(envelope.protocolVersion.slice(0, 32), PROTOCOL_VERSION);
  return envelope;
}

/** The bytes of a base64 payload; a payload that is not base64 is a bad message. */
export function payloadBytes(envelope: RpsEnvelope): Buffer {
  const text = envelope.payload ?? '';
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) throw ActivationErrors.badMessage('payload is not base64');
  return Buffer.from(text, 'base64');
}

/** A JSON payload (the first message's): an object, else a bad message. */
export function payloadObject(envelope: RpsEnvelope): Record<string, unknown> {
  const bytes = payloadBytes(envelope);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw ActivationErrors.badMessage('payload is not JSON');
  }
  if (!isRecord(value)) throw ActivationErrors.badMessage('payload is not a JSON object');
  return value;
}
