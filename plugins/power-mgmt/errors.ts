import { HttpError } from '../../core/plugin-api.js';
import type { Device } from 'amt-gateway/devices';

/** Error codes of the power-mgmt plugin, each with its HTTP status (device failures come from the device gate). */
export const PowerErrors = {
  consentRequired: (device: Device) =>
    new HttpError(409, 'GW_ERR_CONSENT_REQUIRED', `device '${device.id}' (${device.ipAddress}) needs user consent for a boot choice; give it first (POST /api/redirection/{deviceId}/consent)`),
  iderUnavailable: (device: Device) => new HttpError(409, 'GW_ERR_IDER_NOT_OPEN', `device '${device.id}' (${device.ipAddress}) has no IDE-R session to boot from: the redirection and images plugins serve them`),
  actionUnsupported: (device: Device, action: string, offered: string[]) =>
    new HttpError(
      422,
      'GW_ERR_POWER_ACTION_UNSUPPORTED',
      `device '${device.id}' (${device.ipAddress}) does not offer '${action}' now; it offers: ${offered.length ? offered.join(', ') : 'nothing'}`,
    ),
};
