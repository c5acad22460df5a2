import { HttpError } from '../../core/plugin-api.js';

/** Error codes of the remote-monitor plugin, each with its HTTP status (device failures come from `deviceAccess`). */
export const MonitorErrors = {
  deviceNotFound: (id: string) => new HttpError(404, 'GW_ERR_DEVICE_NOT_FOUND', `no device '${id}'`),
};
