/**
 * The one narrow way activation's steps speak WS-Management: a request envelope built by Intel's
 * `@device-management-toolkit/wsman-messages` (the builders RPS itself uses) goes out through the
 * gateway's client (Digest, bounds, faults), and its answer is read by the gateway's own parser.
 * Every call is counted, for records and the benchmark.
 */
import wsman from '@device-management-toolkit/wsman-messages';
import type { WsmanClient } from '../../../workers/amt/wsman-client.js';
import { parseInstance, parseMethodOutput, type MethodOutput, type WsmanItem } from '../../../workers/amt/wsman-parse.js';
import { ActivationErrors } from '../errors.js';

const { AMT, IPS, CIM } = wsman;

/**
 * `wsman-messages` puts values into the XML as given: every value that goes into a request passes
 * here first. Ours are generated or checked at input; anything else is a bug, refused loudly.
 */
export function xmlSafe<T extends string | number | boolean>(value: T): T {
  if (typeof value === 'string' && /[<>&]/.test(value)) throw new Error('a value for a WS-Management request holds XML markup');
  return value;
}

/** Properties read from the firmware, checked before they go back into a request (a Put gives the whole instance back). */
export function safeProperties(properties: Record<string, string | string[]>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(properties)) out[name] = Array.isArray(value) ? value.map((v) => xmlSafe(v)) : xmlSafe(value);
  return out;
}

export class FirmwareCalls {
  readonly amt = new AMT.Messages();
  readonly ips = new IPS.Messages();
  readonly cim = new CIM.Messages();
  /** Requests sent through this adapter (each is one HTTP exchange, more when Digest asks again). */
  calls = 0;

  constructor(readonly client: WsmanClient) {}

  /** A Get: the instance of `className` in the answer. */
  async get(xml: string, className: string): Promise<WsmanItem> {
    this.calls++;
    return parseInstance(await this.client.sendEnvelope(xml), className);
  }

  /** A Put: the instance as the firmware stored it. */
  async put(xml: string, className: string): Promise<WsmanItem> {
    this.calls++;
    return parseInstance(await this.client.sendEnvelope(xml), className);
  }

  /** A method call: its output, whatever its `ReturnValue`. */
  async invoke(xml: string, method: string): Promise<MethodOutput> {
    this.calls++;
    return parseMethodOutput(await this.client.sendEnvelope(xml), method);
  }

  /** A method call that must answer `ReturnValue` 0. @throws `GW_ERR_ACTIVATION_FIRMWARE_REFUSED` naming `call` */
  async invokeOk(xml: string, method: string, call: string): Promise<MethodOutput> {
    const output = await this.invoke(xml, method);
    if (output.returnValue !== 0) throw ActivationErrors.firmwareRefused(call, output.returnValue);
    return output;
  }
}
