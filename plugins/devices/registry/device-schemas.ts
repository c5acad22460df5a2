import { Type } from '@sinclair/typebox';
import { StringEnum } from '../../../core/validation/schema-types.js';

const NULLABLE_STRING = { type: ['string', 'null'] };

export const DEVICE_SCHEMA = {
  type: 'object',
  required: ['id', 'ipAddress', 'hostname', 'firmwareVersion', 'provisioningState', 'tls', 'openPorts', 'authStatus', 'online', 'firstSeen', 'lastSeen', 'lastScanId'],
  properties: {
    id: { type: 'string' },
    ipAddress: { type: 'string', format: 'ipv4' },
    hostname: NULLABLE_STRING,
    domain: NULLABLE_STRING,
    firmwareVersion: { ...NULLABLE_STRING, description: 'AMT firmware version, e.g. 15.0.23.1706' },
    provisioningState: { enum: ['PRE', 'IN', 'POST', null], description: 'AMT provisioning state 0, 1, 2; null when unknown' },
    provisioningMode: { enum: ['ACM', 'CCM', null] },
    uuid: NULLABLE_STRING,
    tls: { type: 'boolean', description: 'Whether the device answers on the TLS port (16993)' },
    tlsFingerprint: { ...NULLABLE_STRING, description: 'SHA-256 of the certificate pinned on first contact' },
    openPorts: { type: 'array', items: { type: 'integer' } },
    authStatus: {
      enum: ['ok', 'unauthorized', 'unreachable', 'error', 'locked-out-risk'],
      description:
        '`locked-out-risk`: sign-ins to the device are paused because another failed login could lock its account (the budget below the lockout is spent, or the device said it is locked); `GET /api/devices/{id}/sign-in` says why, `DELETE` resets it',
    },
    credentialId: NULLABLE_STRING,
    online: { type: 'boolean', description: 'True while `connections` is not empty' },
    connections: {
      type: 'array',
      items: { enum: ['lan', 'cira'] },
      uniqueItems: true,
      description: 'How the gateway reaches the device now: `lan` (it answers on the local network), `cira` (it holds a CIRA tunnel)',
    },
    firstSeen: { type: 'string', format: 'date-time' },
    lastSeen: { type: 'string', format: 'date-time' },
    lastScanId: NULLABLE_STRING,
  },
};

export const PAGING_QUERY_PROPERTIES = {
  offset: Type.Integer({ minimum: 0, default: 0, description: 'Items to skip' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Items to return (at most 1000)' })),
};

export const DEVICE_LIST_QUERY = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 255, description: 'Hostname or address substring' })),
  provisioningState: Type.Optional(StringEnum(['PRE', 'IN', 'POST'])),
  online: Type.Optional(Type.Boolean()),
  ...PAGING_QUERY_PROPERTIES,
});
