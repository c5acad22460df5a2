/** Hostname, domain and Digest realm from `AMT_GeneralSettings`. */
import type { WsmanClient } from '../wsman-client.js';
import { textOf, type WsmanObject } from '../wsman-parse.js';

export const GENERAL_SETTINGS = 'AMT_GeneralSettings';

export interface GeneralSettings {
  hostName: string | null;
  domainName: string | null;
  digestRealm: string | null;
}

function nonEmpty(value: string | null): string | null {
  return value === null || value === '' ? null : value;
}

/** Decodes the properties of an `AMT_GeneralSettings` instance (empty values read as null). */
export function decodeGeneralSettings(properties: WsmanObject): GeneralSettings {
  return {
    hostName: nonEmpty(textOf(properties['HostName'])),
    domainName: nonEmpty(textOf(properties['DomainName'])),
    digestRealm: nonEmpty(textOf(properties['DigestRealm'])),
  };
}

/** Gets `AMT_GeneralSettings` and decodes hostname, domain and realm. */
export async function readGeneralSettings(client: WsmanClient): Promise<GeneralSettings> {
  return decodeGeneralSettings((await client.get(GENERAL_SETTINGS)).properties);
}
