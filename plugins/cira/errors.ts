import { HttpError } from '../../core/plugin-api.js';
import type { CiraChannelErrorCode } from './api.js';

/** An `openChannel` failure: `code` says which, `reason` is the device's CHANNEL_OPEN_FAILURE code. */
export class CiraChannelError extends Error {
  constructor(
    readonly code: CiraChannelErrorCode,
    message: string,
    readonly reason?: number,
  ) {
    super(message);
    this.name = 'CiraChannelError';
  }
}

/** Error codes of the cira routes, each with its HTTP status. */
export const CiraErrors = {
  accountNotFound: (id: string) => new HttpError(404, 'GW_ERR_CIRA_ACCOUNT_NOT_FOUND', `no MPS account '${id}'`),
  accountExists: (username: string) => new HttpError(409, 'GW_ERR_CIRA_ACCOUNT_EXISTS', `an MPS account named '${username}' exists`),
  bindingNotFound: (uuid: string) => new HttpError(404, 'GW_ERR_CIRA_BINDING_NOT_FOUND', `no MPS account is bound to UUID '${uuid}'`),
  connectionNotFound: (deviceId: string) => new HttpError(404, 'GW_ERR_CIRA_CONNECTION_NOT_FOUND', `no live CIRA tunnel for device '${deviceId}'`),
};
