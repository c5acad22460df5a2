/** Provisioning state and mode from `AMT_SetupAndConfigurationService`. */
import type { WsmanClient } from '../wsman-client.js';
import { intOf, type WsmanObject } from '../wsman-parse.js';

export const SETUP_AND_CONFIGURATION = 'AMT_SetupAndConfigurationService';

export type ProvisioningStateName = 'PRE' | 'IN' | 'POST';
export type ProvisioningModeName = 'ACM' | 'CCM';

export interface ProvisioningInfo {
  /** 0 pre, 1 in, 2 post; null when the device did not say. */
  provisioningState: number | null;
  provisioningStateName: ProvisioningStateName | null;
  /** 1 admin control, 4 client control; other values are kept but have no name. */
  provisioningMode: number | null;
  provisioningModeName: ProvisioningModeName | null;
}

const STATE_NAMES: Record<number, ProvisioningStateName> = { 0: 'PRE', 1: 'IN', 2: 'POST' };
const MODE_NAMES: Record<number, ProvisioningModeName> = { 1: 'ACM', 4: 'CCM' };

/** Decodes the properties of an `AMT_SetupAndConfigurationService` instance. */
export function decodeProvisioning(properties: WsmanObject): ProvisioningInfo {
  const state = intOf(properties['ProvisioningState']);
  const mode = intOf(properties['ProvisioningMode']);
  return {
    provisioningState: state,
    provisioningStateName: state === null ? null : (STATE_NAMES[state] ?? null),
    provisioningMode: mode,
    provisioningModeName: mode === null ? null : (MODE_NAMES[mode] ?? null),
  };
}

/** Gets `AMT_SetupAndConfigurationService` and decodes provisioning state and mode. */
export async function readProvisioning(client: WsmanClient): Promise<ProvisioningInfo> {
  return decodeProvisioning((await client.get(SETUP_AND_CONFIGURATION)).properties);
}
