/** Firmware version: `VersionString` of the `CIM_SoftwareIdentity` instance whose `InstanceID` is `AMT`. */
import type { WsmanClient } from '../wsman-client.js';
import { textOf, type WsmanItem } from '../wsman-parse.js';

export const SOFTWARE_IDENTITY = 'CIM_SoftwareIdentity';

/** The AMT firmware version among enumerated `CIM_SoftwareIdentity` items, or null when absent. */
export function decodeFirmwareVersion(items: readonly WsmanItem[]): string | null {
  const amt = items.find((item) => textOf(item.properties['InstanceID']) === 'AMT');
  const version = amt ? textOf(amt.properties['VersionString']) : null;
  return version ? version : null;
}

/** Enumerates `CIM_SoftwareIdentity` (Enumerate + Pull) and returns the AMT firmware version. */
export async function readFirmwareVersion(client: WsmanClient): Promise<string | null> {
  return decodeFirmwareVersion(await client.enumerate(SOFTWARE_IDENTITY));
}
