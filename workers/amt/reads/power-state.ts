/** Current power state from `CIM_AssociatedPowerManagementService`. */
import { AmtError } from '../errors.js';
import type { WsmanClient } from '../wsman-client.js';
import { intOf, textsOf, type WsmanItem } from '../wsman-parse.js';

export const SERVICE_AVAILABLE_TO_ELEMENT = 'CIM_ServiceAvailableToElement';
export const ASSOCIATED_POWER_MANAGEMENT_SERVICE = 'CIM_AssociatedPowerManagementService';

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

/**
 * The power state in one request: a Get of `CIM_AssociatedPowerManagementService` (the association's
 * one instance, as OpenStack Ironic's AMT driver and amtctrl read it), else, where the firmware
 * answers that Get with a Fault, the enumeration of `CIM_ServiceAvailableToElement` (Enumerate and
 * Pull, as MeshCommander and Open AMT read it).
 */
export async function readPowerState(client: WsmanClient): Promise<PowerStateInfo> {
  try {
    return decodePowerState([await client.get(ASSOCIATED_POWER_MANAGEMENT_SERVICE)]);
  } catch (error) {
    if (!(error instanceof AmtError) || error.code !== 'AMT_ERR_FAULT') throw error;
  }
  return decodePowerState(await client.enumerate(SERVICE_AVAILABLE_TO_ELEMENT));
}
