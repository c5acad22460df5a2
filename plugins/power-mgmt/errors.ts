import { HttpError } from '../../core/plugin-api.js';
import type { AmtFailure } from '../../workers/tasks/task-types.js';
import type { Device } from '../rest-api/api.js';

const name = (device: Device) => `device '${device.id}' (${device.ipAddress})`;

/** Error codes of the power-mgmt plugin, each with its HTTP status. */
export const PowerErrors = {
  deviceNotFound: (id: string) => new HttpError(404, 'GW_ERR_DEVICE_NOT_FOUND', `no device '${id}'`),
  actionUnsupported: (device: Device, action: string, offered: string[]) =>
    new HttpError(422, 'GW_ERR_POWER_ACTION_UNSUPPORTED', `${name(device)} does not offer '${action}' now; it offers: ${offered.length ? offered.join(', ') : 'nothing'}`),
  noCredentials: () => new HttpError(409, 'GW_ERR_NO_CREDENTIALS', 'no credential is stored; create one first'),
  offline: (device: Device, failure: AmtFailure) => new HttpError(409, 'GW_ERR_DEVICE_OFFLINE', `${name(device)} is offline: ${failure.message}`),
  unauthorized: (device: Device, attempts: number) =>
    new HttpError(502, 'GW_ERR_DEVICE_UNAUTHORIZED', `${name(device)} refused the credentials tried (${attempts})`, { expose: true }),
  timeout: (device: Device, failure: AmtFailure) => new HttpError(504, 'GW_ERR_DEVICE_TIMEOUT', `${name(device)} did not answer in time: ${failure.message}`, { expose: true }),
  tls: (device: Device, failure: AmtFailure) => new HttpError(502, 'GW_ERR_DEVICE_TLS', `TLS with ${name(device)} failed: ${failure.message}`, { expose: true }),
  deviceError: (device: Device, failure: AmtFailure) => new HttpError(502, 'GW_ERR_DEVICE_ERROR', `${name(device)} answered with an error: ${failure.message}`, { expose: true }),
  cancelled: () => new HttpError(503, 'GW_ERR_SHUTTING_DOWN', 'the gateway is shutting down'),
};

/** The problem a device failure gives: offline is a conflict with the device's state, the rest are bad gateways. */
export function deviceProblem(device: Device, failure: AmtFailure): HttpError {
  switch (failure.code) {
    case 'AMT_ERR_CONNECT':
      return PowerErrors.offline(device, failure);
    case 'AMT_ERR_TIMEOUT':
      return PowerErrors.timeout(device, failure);
    case 'AMT_ERR_TLS':
    case 'AMT_ERR_TLS_PIN_MISMATCH':
      return PowerErrors.tls(device, failure);
    case 'AMT_ERR_CANCELLED':
      return PowerErrors.cancelled();
    default:
      return PowerErrors.deviceError(device, failure);
  }
}
