import { HttpError } from '../../core/plugin-api.js';

/** Device ids an ambiguous-target problem lists at most. */
const AMBIGUOUS_LISTED = 20;

/** Error codes of the rest-api plugin, each with its HTTP status. */
export const RestApiErrors = {
  credentialNotFound: (id: string) => new HttpError(404, 'GW_ERR_CREDENTIAL_NOT_FOUND', `no credential '${id}'`),
  noCredentials: () => new HttpError(409, 'GW_ERR_NO_CREDENTIALS', 'no credential is stored; create one first'),
  noDefaultCredential: () => new HttpError(409, 'GW_ERR_NO_DEFAULT_CREDENTIAL', 'no credential is marked as the default; pass id'),
  deviceNotFound: (id: string) => new HttpError(404, 'GW_ERR_DEVICE_NOT_FOUND', `no device '${id}'`),
  scanNotFound: (id: string) => new HttpError(404, 'GW_ERR_SCAN_NOT_FOUND', `no scan '${id}'`),
  scanFinished: (id: string, status: string) => new HttpError(409, 'GW_ERR_SCAN_FINISHED', `scan '${id}' is already ${status}`),
  tooManyScans: (max: number) => new HttpError(429, 'GW_ERR_TOO_MANY_SCANS', `at most ${max} scans may run at once; wait for one to finish`),
  tooFewSockets: (fileLimit: number, allowed: number) =>
    new HttpError(
      503,
      'GW_ERR_SCAN_SOCKETS',
      `the gateway may open ${fileLimit} files (ulimit -n), too few for a scan beside its device connections (${allowed} probes in flight); raise the limit (ulimit -n, systemd LimitNOFILE=) and restart`,
    ),
  rangeMalformed: (part: string, reason: string) =>
    new HttpError(400, 'GW_ERR_SCAN_RANGE_MALFORMED', `range part '${part}' is malformed: ${reason}`, { errors: [{ path: 'body.range', message: `'${part}': ${reason}` }] }),
  rangeTooWide: (count: number, max: number) => new HttpError(422, 'GW_ERR_SCAN_RANGE_TOO_WIDE', `the range holds ${count} addresses; at most ${max} are allowed`),
  rangeNotAllowed: (part: string) => new HttpError(422, 'GW_ERR_SCAN_RANGE_NOT_ALLOWED', `range part '${part}' is outside the allowed networks`),
  addressMalformed: (value: string) => new HttpError(400, 'GW_ERR_ADDRESS_MALFORMED', `'${value}' is not an IPv4 address`),
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
