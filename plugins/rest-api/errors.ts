import { HttpError } from '../../core/plugin-api.js';

/** Error codes of the rest-api plugin, each with its HTTP status. */
export const RestApiErrors = {
  scanNotFound: (id: string) => new HttpError(404, 'GW_ERR_SCAN_NOT_FOUND', `no scan '${id}'`),
  scanFinished: (id: string, status: string) => new HttpError(409, 'GW_ERR_SCAN_FINISHED', `scan '${id}' is already ${status}`),
  tooManyScans: (max: number) => new HttpError(429, 'GW_ERR_TOO_MANY_SCANS', `at most ${max} scans may run at once; wait for one to finish`),
  tooManyUserScans: (max: number) => new HttpError(429, 'GW_ERR_TOO_MANY_USER_SCANS', `you have ${max} scans running, the most one user may; wait for one to finish`),
  tooFewSockets: (fileLimit: number, allowed: number) =>
    new HttpError(
      503,
      'GW_ERR_SCAN_SOCKETS',
      `the gateway may open ${fileLimit} files (ulimit -n), too few for a scan beside its device connections (${allowed} probes in flight); raise the limit (ulimit -n, systemd LimitNOFILE=) and restart`,
    ),
  rangeMalformed: (part: string, reason: string) =>
    new HttpError(400, 'GW_ERR_SCAN_RANGE_MALFORMED', `range part '${part}' is malformed: ${reason}`, { errors: [{ path: 'body.range', message: `'${part}': ${reason}` }] }),
  rangeTooWide: (count: number, max: number) => new HttpError(422, 'GW_ERR_SCAN_RANGE_TOO_WIDE', `the range holds ${count} addresses; at most ${max} are allowed`),
  addressMalformed: (value: string) => new HttpError(400, 'GW_ERR_ADDRESS_MALFORMED', `'${value}' is not an IPv4 address`),
  rangeNotAllowed: (part: string) => new HttpError(422, 'GW_ERR_SCAN_RANGE_NOT_ALLOWED', `range part '${part}' is outside the allowed networks`),
};
