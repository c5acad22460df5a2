/** Power change: `CIM_PowerManagementService.RequestPowerStateChange` on the managed computer system. */
import { resourceUri } from '../resource-uris.js';
import type { WsmanClient } from '../wsman-client.js';
import type { MethodOutput } from '../wsman-parse.js';

export const POWER_MANAGEMENT_SERVICE = 'CIM_PowerManagementService';

/** DMTF values AMT accepts out of band (2, 5, 8, 10) and with an in-band agent (4, 7, 12, 14). */
export const POWER_STATES = { on: 2, cycle: 5, off: 8, reset: 10, sleep: 4, hibernate: 7, 'soft-off': 12, 'soft-reset': 14 } as const;

/** Decodes the method output: `ReturnValue` 0 is success. */
export function decodePowerChange(output: MethodOutput): { returnValue: number | null; ok: boolean } {
  return { returnValue: output.returnValue, ok: output.returnValue === 0 };
}

/**
 * Requests a power state change of the managed system (`CIM_ComputerSystem`, `ManagedSystem`).
 * @returns the device's `ReturnValue` and whether it is success.
 */
export async function requestPowerStateChange(client: WsmanClient, powerState: number): Promise<{ returnValue: number | null; ok: boolean }> {
  const output = await client.invoke(POWER_MANAGEMENT_SERVICE, 'RequestPowerStateChange', {
    PowerState: powerState,
    ManagedElement: {
      resourceUri: resourceUri('CIM_ComputerSystem'),
      selectors: { CreationClassName: 'CIM_ComputerSystem', Name: 'ManagedSystem' },
    },
  });
  return decodePowerChange(output);
}
