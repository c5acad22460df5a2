import { HttpError } from '../../core/plugin-api.js';

/** Error codes of the scan-hub plugin, each with its HTTP status (negotiate and upgrade refusals). */
export const HubErrors = {
  unauthorized: () =>
    new HttpError(401, 'GW_ERR_HUB_UNAUTHORIZED', 'a valid bearer token is required (Authorization header or access_token query parameter)', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    }),
  forbidden: () => new HttpError(403, 'GW_ERR_HUB_FORBIDDEN', 'this connection id was negotiated by another user'),
  unknownConnection: () => new HttpError(404, 'GW_ERR_HUB_UNKNOWN_CONNECTION', 'no negotiated connection has this id; negotiate again'),
  connectionInUse: () => new HttpError(409, 'GW_ERR_HUB_CONNECTION_IN_USE', 'a socket is already open for this connection id'),
  methodNotAllowed: () => new HttpError(405, 'GW_ERR_HUB_METHOD_NOT_ALLOWED', 'negotiate takes POST', { headers: { Allow: 'POST' } }),
  webSocketRequired: () => new HttpError(400, 'GW_ERR_HUB_WEBSOCKET_REQUIRED', 'the hub speaks WebSockets only: open a WebSocket to /scanHub'),
  userLimit: (max: number) =>
    new HttpError(429, 'GW_ERR_HUB_USER_LIMIT', `you hold ${max} hub connections (open or negotiated), the most one user may; close one first`, { headers: { 'Retry-After': '5' } }),
  unavailable: () => new HttpError(503, 'GW_ERR_HUB_UNAVAILABLE', 'the hub takes no more connections now (full or shutting down)', { headers: { 'Retry-After': '5' } }),
};
