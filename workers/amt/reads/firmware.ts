/** Firmware version: `VersionString` of the `CIM_SoftwareIdentity` instance whose `InstanceID` is `AMT`. */
import { AmtError } from '../errors.js';
import type { WsmanClient } from '../wsman-client.js';
import { textOf, type WsmanItem } from '../wsman-parse.js';

export const SOFTWARE_IDENTITY = 'CIM_SoftwareIdentity';

/** The AMT firmware version among enumerated `CIM_SoftwareIdentity` items, or null when absent. */
export function decodeFirmwareVersion(items: readonly WsmanItem[]): string | null {
  const amt = items.find((item) => textOf(item.properties['InstanceID']) === 'AMT');
  const version = amt ? textOf(amt.properties['VersionString']) : null;
  return version ? version : null;
}

/**
 * Reads the AMT firmware version in one round trip: a Get of the `InstanceID=AMT` instance. Firmware
 * that refuses the selector (a SOAP Fault) is read the long way, Enumerate + Pull of the class.
 */
export async function readFirmwareVersion(client: WsmanClient): Promise<string | null> {
  try {
    const version = decodeFirmwareVersion([await client.get(SOFTWARE_IDENTITY, { InstanceID: 'AMT' })]);
    if (version) return version;
  } catch (error) {
    if (!(error instanceof AmtError) || error.code !== 'AMT_ERR_FAULT') throw error;
  }
  return decodeFirmwareVersion(await client.enumerate(SOFTWARE_IDENTITY));
}
