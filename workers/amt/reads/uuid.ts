/** The platform UUID from `CIM_ComputerSystemPackage.PlatformGUID` (or `AMT_SetupAndConfigurationService.GetUuid`). */
import type { WsmanClient } from '../wsman-client.js';
import { textOf, type WsmanObject } from '../wsman-parse.js';

export const COMPUTER_SYSTEM_PACKAGE = 'CIM_ComputerSystemPackage';

/**
 * Formats 16 UUID bytes as SMBIOS stores them: the first three fields are little-endian, so their
 * bytes are swapped to print the canonical UUID (as the BIOS and the OS show it).
 */
export function uuidFromSmbiosBytes(bytes: Buffer): string | null {
  if (bytes.length !== 16) return null;
  const hex = bytes.toString('hex');
  const swap = (s: string): string => s.match(/../g)!.reverse().join('');
  return [swap(hex.slice(0, 8)), swap(hex.slice(8, 12)), swap(hex.slice(12, 16)), hex.slice(16, 20), hex.slice(20)].join('-');
}

/** `PlatformGUID` (32 hex digits) -> canonical lower-case UUID; null when malformed. */
export function decodePlatformGuid(platformGuid: string | null): string | null {
  if (platformGuid === null) return null;
  const hex = platformGuid.replace(/-/g, '');
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return null;
  return uuidFromSmbiosBytes(Buffer.from(hex, 'hex'));
}

/** Decodes the properties of a `CIM_ComputerSystemPackage` instance. */
export function decodeComputerSystemPackage(properties: WsmanObject): string | null {
  return decodePlatformGuid(textOf(properties['PlatformGUID']));
}

/** Decodes a `GetUuid_OUTPUT` (`UUID`, base64 of the 16 bytes); null when malformed. */
export function decodeGetUuidOutput(properties: WsmanObject): string | null {
  const b64 = textOf(properties['UUID']);
  if (!b64 || !/^[A-Za-z0-9+/]{22}==$/.test(b64)) return null;
  return uuidFromSmbiosBytes(Buffer.from(b64, 'base64'));
}

/** Gets `CIM_ComputerSystemPackage` and returns the platform UUID. */
export async function readPlatformUuid(client: WsmanClient): Promise<string | null> {
  return decodeComputerSystemPackage((await client.get(COMPUTER_SYSTEM_PACKAGE)).properties);
}
