/**
 * The read floor's Piscina task (read-floor-host.ts): the bare client's read of one device
 * (wsman-reference-client.ts), each answer parsed by the gateway's own `parseEnvelope` (fast-xml-parser)
 * and its value looked up in the parsed Body, instead of the bare client's regex.
 */
import { parseEnvelope, type WsmanValue } from '../../workers/amt/wsman-parse.js';
import { readDevice } from './wsman-reference-client.js';

export interface FloorReadInput {
  address: string;
  password: string;
}

/** The first text of an element named `name` (namespace prefixes aside) anywhere under `value`. */
function valueNamed(value: WsmanValue, name: string): string | null {
  if (typeof value === 'string') return null;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = valueNamed(item, name);
      if (found !== null) return found;
    }
    return null;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key.slice(key.indexOf(':') + 1) === name && typeof child === 'string') return child;
    const found = valueNamed(child, name);
    if (found !== null) return found;
  }
  return null;
}

export const parsedValue = (xml: string, name: string): string | null => valueNamed(parseEnvelope(xml).body, name);

export default async function readFloorDevice(input: FloorReadInput): Promise<boolean> {
  const result = await readDevice(input.address, 16992, 'admin', input.password, parsedValue).catch(() => undefined);
  return result?.ok === true;
}
