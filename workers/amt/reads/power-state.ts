/** Current power state from `CIM_ServiceAvailableToElement` (items `CIM_AssociatedPowerManagementService`). */
import type { WsmanClient } from '../wsman-client.js';
import { intOf, textsOf, type WsmanItem } from '../wsman-parse.js';

export const SERVICE_AVAILABLE_TO_ELEMENT = 'CIM_ServiceAvailableToElement';

export interface PowerStateInfo {
  /** DMTF power state: 2 on, 3/4 sleep, 7 hibernate, 6/8 off, ...; null when not reported. */
  powerState: number | null;
  /** The `RequestPowerStateChange` values the device offers now. */
  availableRequestedPowerStates: number[];
}

/** Decodes the enumerated items; the power management association carries the state. */
export function decodePowerState(items: readonly WsmanItem[]): PowerStateInfo {
  const item = items.find((i) => i.className === 'CIM_AssociatedPowerManagementService') ?? items.find((i) => 'PowerState' in i.properties);
  if (!item) return { powerState: null, availableRequestedPowerStates: [] };
  const available = textsOf(item.properties['AvailableRequestedPowerStates'])
    .map((v) => Number.parseInt(v, 10))
    .filter((v) => Number.isInteger(v));
  return { powerState: intOf(item.properties['PowerState']), availableRequestedPowerStates: available };
}

/** Enumerates `CIM_ServiceAvailableToElement` and decodes the power state. */
export async function readPowerState(client: WsmanClient): Promise<PowerStateInfo> {
  return decodePowerState(await client.enumerate(SERVICE_AVAILABLE_TO_ELEMENT));
}
