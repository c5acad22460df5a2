import type { Device, DeviceRegistry } from '../api.js';
import { DeviceErrors } from '../errors.js';

/** A device UUID (AMT's, or a device id, which are UUIDs too) as text, any case. */
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The known device a diagnostics target names: a device id or a device UUID selects exactly one
 * (an unknown UUID is 404); an address selects the one device there, none (an address the gateway
 * does not know), or, when several share it (CIRA devices dial in from one NAT address), none
 * silently: that is GW_ERR_TARGET_AMBIGUOUS listing them, since each would be checked through
 * its own tunnel and only the caller knows which one is meant.
 * @param path where the target came from, for the problem's `errors` (e.g. `params.ip_address`)
 */
export function deviceOfTarget(devices: DeviceRegistry, target: string, path: string): Readonly<Device> | undefined {
  const byId = devices.get(target);
  if (byId) return byId;
  if (UUID_TEXT.test(target)) {
    const uuid = target.toLowerCase();
    const byUuid = devices.list().find((d) => d.uuid?.toLowerCase() === uuid);
    if (!byUuid) throw DeviceErrors.deviceNotFound(target);
    return byUuid;
  }
  const atAddress = devices.list().filter((d) => d.ipAddress === target);
  if (atAddress.length > 1) throw DeviceErrors.targetAmbiguous(target, atAddress.map((d) => d.id), path);
  return atAddress[0];
}
