import { HttpError } from '../../core/plugin-api.js';

/** Device ids an ambiguous-target problem lists at most. */
const AMBIGUOUS_LISTED = 20;

/** Error codes of the devices plugin (the device domain and its gate), each with its HTTP status. */
export const DeviceErrors = {
  credentialNotFound: (id: string) => new HttpError(404, 'GW_ERR_CREDENTIAL_NOT_FOUND', `no credential '${id}'`),
  noCredentials: () => new HttpError(409, 'GW_ERR_NO_CREDENTIALS', 'no credential is stored; create one first'),
  noDefaultCredential: () => new HttpError(409, 'GW_ERR_NO_DEFAULT_CREDENTIAL', 'no credential is marked as the default; pass id'),
  deviceNotFound: (id: string) => new HttpError(404, 'GW_ERR_DEVICE_NOT_FOUND', `no device '${id}'`),
  addressNotAllowed: (value: string) => new HttpError(422, 'GW_ERR_ADDRESS_NOT_ALLOWED', `address ${value} is outside the allowed networks`),
  /** Several devices share the address a diagnostics target names (CIRA devices behind one NAT): the caller names one by id or UUID. */
  targetAmbiguous: (address: string, deviceIds: readonly string[], path: string) =>
    new HttpError(
      409,
      'GW_ERR_TARGET_AMBIGUOUS',
      `${deviceIds.length} devices share the address ${address}; name one by its device id or UUID (devices: ${deviceIds.slice(0, AMBIGUOUS_LISTED).join(', ')}${deviceIds.length > AMBIGUOUS_LISTED ? ', ...' : ''})`,
      { errors: deviceIds.slice(0, AMBIGUOUS_LISTED).map((id) => ({ path, message: `matches device ${id}` })) },
    ),
};
