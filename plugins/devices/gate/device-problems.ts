import { HttpError } from '../../../core/plugin-api.js';
import type { AmtFailure } from '../../../workers/tasks/task-types.js';
import type { Device } from '../api.js';

const name = (device: Device) => `device '${device.id}' (${device.ipAddress})`;

/** Problems of device operations (power, inventory, event log), each with its HTTP status. */
export const DeviceProblems = {
  noCredentials: () => new HttpError(409, 'GW_ERR_NO_CREDENTIALS', 'no credential is stored; create one first'),
  offline: (device: Device, failure: AmtFailure) => new HttpError(409, 'GW_ERR_DEVICE_OFFLINE', `${name(device)} is offline: ${failure.message}`),
  unauthorized: (device: Device, attempts: number) =>
    new HttpError(502, 'GW_ERR_DEVICE_UNAUTHORIZED', `${name(device)} refused the credentials tried (${attempts})`, { expose: true }),
  timeout: (device: Device, failure: AmtFailure) => new HttpError(504, 'GW_ERR_DEVICE_TIMEOUT', `${name(device)} did not answer in time: ${failure.message}`, { expose: true }),
  tls: (device: Device, failure: AmtFailure) => new HttpError(502, 'GW_ERR_DEVICE_TLS', `TLS with ${name(device)} failed: ${failure.message}`, { expose: true }),
  deviceError: (device: Device, failure: AmtFailure) => new HttpError(502, 'GW_ERR_DEVICE_ERROR', `${name(device)} answered with an error: ${failure.message}`, { expose: true }),
  noChallenge: (device: Device, failure: AmtFailure) =>
    new HttpError(502, 'GW_ERR_DEVICE_NOT_AUTHENTICATED', `${name(device)} answered without asking for authentication (${failure.message}): not taken as the device's answer`, { expose: true }),
  busy: (device: Device, failure: AmtFailure) => new HttpError(409, 'GW_ERR_DEVICE_BUSY', `${name(device)} is busy: ${failure.message}`, { expose: true }),
  unsupported: (device: Device, failure: AmtFailure) => new HttpError(422, 'GW_ERR_DEVICE_UNSUPPORTED', `${name(device)} does not offer this now: ${failure.message}`, { expose: true }),
  noPath: (device: Device, kind: string) => new HttpError(409, 'GW_ERR_DEVICE_NO_PATH', `${name(device)} cannot be reached along '${kind}' now (none, or not proven to lead to the device)`, { expose: true }),
  cancelled: () => new HttpError(503, 'GW_ERR_SHUTTING_DOWN', 'the gateway is shutting down'),
  signInPaused: (device: Device, detail: string) =>
    new HttpError(409, 'GW_ERR_SIGN_IN_PAUSED', `sign-ins to ${name(device)} are paused to avoid locking its account: ${detail}`, { expose: true }),
  everyCredentialRefused: (device: Device, refused: number) =>
    new HttpError(
      502,
      'GW_ERR_DEVICE_UNAUTHORIZED',
      `${name(device)} refused every stored credential earlier (${refused}); change the password of one, or reset the device's sign-in memory`,
      { expose: true },
    ),
  lockedOut: (device: Device) =>
    new HttpError(409, 'GW_ERR_SIGN_IN_PAUSED', `${name(device)} says its account is locked after repeated failed logins; sign-ins are paused`, { expose: true }),
};

/** The documented responses of the problems above, plus the unknown device the calling route reports. */
export const DEVICE_PROBLEM_RESPONSES = {
  404: { description: 'Unknown device' },
  409: { description: 'The device is offline, busy, no credential is stored, or sign-ins to it are paused to avoid a lockout' },
  422: { description: 'The device is outside the allowed networks (`allowedNetworks` of the devices plugin), or does not offer what was asked now' },
  502: { description: 'The device refused the credentials, failed TLS, answered with an error, or answered without asking for authentication (`GW_ERR_DEVICE_NOT_AUTHENTICATED`)' },
  503: { description: 'The gateway is shutting down, or too many device operations run through CIRA tunnels at once (`GW_ERR_CIRA_BUSY`, retry after `Retry-After`)' },
  504: { description: 'The device did not answer in time' },
};

/** The problem a device failure gives: offline is a conflict with the device's state, the rest are bad gateways. */
export function deviceProblem(device: Device, failure: AmtFailure): HttpError {
  switch (failure.code) {
    case 'AMT_ERR_CONNECT':
      return DeviceProblems.offline(device, failure);
    case 'AMT_ERR_TIMEOUT':
      return DeviceProblems.timeout(device, failure);
    case 'AMT_ERR_TLS':
    case 'AMT_ERR_TLS_PIN_MISMATCH':
      return DeviceProblems.tls(device, failure);
    case 'AMT_ERR_NO_CHALLENGE':
      return DeviceProblems.noChallenge(device, failure);
    case 'AMT_ERR_CANCELLED':
      return DeviceProblems.cancelled();
    case 'AMT_ERR_BUSY':
      return DeviceProblems.busy(device, failure);
    case 'AMT_ERR_UNSUPPORTED':
      return DeviceProblems.unsupported(device, failure);
    default:
      return DeviceProblems.deviceError(device, failure);
  }
}
