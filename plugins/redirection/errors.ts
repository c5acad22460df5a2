import { HttpError } from '../../core/plugin-api.js';
import type { Device } from 'amt-gateway/devices';

const name = (device: Device) => `device '${device.id}' (${device.ipAddress})`;

/** Error codes of the redirection plugin, each with its HTTP status (device failures come from the device gate). */
export const RedirectionErrors = {
  sessionNotFound: (id: string) => new HttpError(404, 'GW_ERR_SESSION_NOT_FOUND', `no open session '${id}'`),
  modeUnsupported: (mode: string) => new HttpError(422, 'GW_ERR_REDIRECTION_MODE_UNSUPPORTED', `'${mode}' sessions are not offered yet`),
  disabled: (device: Device, mode: string) => new HttpError(422, 'GW_ERR_REDIRECTION_DISABLED', `${mode} is disabled on ${name(device)}; enable it with PUT .../features`),
  busy: (device: Device, mode: string) => new HttpError(409, 'GW_ERR_REDIRECTION_BUSY', `${name(device)} has a ${mode} session open already`),
  consentRequired: (device: Device) =>
    new HttpError(409, 'GW_ERR_CONSENT_REQUIRED', `${name(device)} needs user consent: start it, and send the code the person at the machine reads out`),
  consentPolicyFixed: (device: Device) => new HttpError(422, 'GW_ERR_CONSENT_POLICY_FIXED', `${name(device)} is in client control mode: its consent policy cannot be changed`),
  wrongCode: (device: Device) => new HttpError(422, 'GW_ERR_CONSENT_CODE_WRONG', `${name(device)} refused the consent code`),
  codeLimit: (device: Device, retryAfterSeconds: number) =>
    new HttpError(429, 'GW_ERR_CONSENT_CODE_LIMIT', `too many wrong consent codes for ${name(device)}; try again later, or start consent again once the wait is over`, { headers: { 'retry-after': String(retryAfterSeconds) } }),
  consentFailed: (device: Device, returnValue: number | null) => new HttpError(502, 'GW_ERR_DEVICE_ERROR', `${name(device)} answered ReturnValue ${returnValue ?? 'none'}`, { expose: true }),
  tooManySessions: () => new HttpError(503, 'GW_ERR_REDIRECTION_FULL', 'too many remote console sessions are open or waiting on this gateway', { expose: true, headers: { 'retry-after': '5' } }),
  userTickets: (max: number, retryAfterSeconds: number) =>
    new HttpError(429, 'GW_ERR_REDIRECTION_USER_LIMIT', `you hold ${max} unused session tickets, the most one user may; use them or let them expire`, { headers: { 'retry-after': String(retryAfterSeconds) } }),
  userSessions: (max: number) =>
    new HttpError(429, 'GW_ERR_REDIRECTION_USER_LIMIT', `you have ${max} remote console sessions open, the most one user may; close one first`, { headers: { 'retry-after': '5' } }),
  ticketInvalid: () => new HttpError(401, 'GW_ERR_TICKET_INVALID', 'the session ticket is unknown, used or expired; create a new session'),
  originRefused: () => new HttpError(403, 'GW_ERR_ORIGIN_REFUSED', 'this origin may not open remote console sessions'),
  forbidden: () => new HttpError(403, 'GW_ERR_FORBIDDEN', 'the user no longer holds remote:connect'),
};
