/** Deactivation and the maintenance tasks rpc-go asks for: unprovision, a new admin password, clock and host name. */
import { flattenProperties, intOf, textOf } from '../../../../workers/amt/wsman-parse.js';
import { ActivationErrors } from '../../errors.js';
import { safeProperties, xmlSafe, type FirmwareCalls } from '../firmware-calls.js';
import { ADMIN_USER, adminPasswordHash } from './setup-steps.js';

/** `Unprovision` back to pre-provisioning (`ProvisioningMode` 1, as RPS and the SDK call it for both modes). */
export async function unprovision(calls: FirmwareCalls): Promise<void> {
  await calls.invokeOk(calls.amt.SetupAndConfigurationService.Unprovision(1 as never), 'Unprovision', 'AMT_SetupAndConfigurationService.Unprovision');
}

/** A new password for `admin`: `SetAdminAclEntryEx` takes the A1 hash as 16 raw bytes, base64. */
export async function changeAdminPassword(calls: FirmwareCalls, realm: string, password: string): Promise<void> {
  const digest = Buffer.from(adminPasswordHash(realm, password), 'hex').toString('base64');
  await calls.invokeOk(calls.amt.AuthorizationService.SetAdminACLEntryEx(ADMIN_USER, digest), 'SetAdminAclEntryEx', 'AMT_AuthorizationService.SetAdminAclEntryEx');
}

/**
 * The firmware's clock set from ours: `GetLowAccuracyTimeSynch` gives its time (Ta0), we answer with
 * our time when it came (Tm1) and now (Tm2), in seconds since 1970 UTC.
 * @returns how far the firmware's clock was from ours, in seconds
 */
export async function syncClock(calls: FirmwareCalls, now: () => number = Date.now): Promise<number> {
  const low = await calls.invokeOk(calls.amt.TimeSynchronizationService.GetLowAccuracyTimeSynch(), 'GetLowAccuracyTimeSynch', 'AMT_TimeSynchronizationService.GetLowAccuracyTimeSynch');
  const tm1 = Math.round(now() / 1000);
  const ta0 = intOf(low.properties['Ta0']);
  if (ta0 === null) throw ActivationErrors.firmwareRefused('AMT_TimeSynchronizationService.GetLowAccuracyTimeSynch (no Ta0)', low.returnValue);
  await calls.invokeOk(calls.amt.TimeSynchronizationService.SetHighAccuracyTimeSynch(ta0, tm1, Math.round(now() / 1000)), 'SetHighAccuracyTimeSynch', 'AMT_TimeSynchronizationService.SetHighAccuracyTimeSynch');
  return ta0 - tm1;
}

/** The OS's host name (and DNS suffix) written into `AMT_GeneralSettings`, where they differ. */
export async function syncHostName(calls: FirmwareCalls, hostname: string, domain: string): Promise<boolean> {
  const item = await calls.get(calls.amt.GeneralSettings.Get(), 'AMT_GeneralSettings');
  if (textOf(item.properties['HostName']) === hostname && (domain === '' || textOf(item.properties['DomainName']) === domain)) return false;
  const properties: Record<string, string | string[]> = { ...flattenProperties(item.properties), HostName: xmlSafe(hostname) };
  if (domain) properties['DomainName'] = xmlSafe(domain);
  await calls.put(calls.amt.GeneralSettings.Put(safeProperties(properties) as never), 'AMT_GeneralSettings');
  return true;
}
