/** JSON Schemas of the cira routes (added to the OpenAPI document). */
import { Type } from '@sinclair/typebox';

const DATE_TIME = { type: 'string', format: 'date-time' };
const UUID = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' });
/** The UUIDs an account may serve; at most 10,000 (an account per device is the safest: one each). */
const uuidList = (description: string) => Type.Array(UUID, { maxItems: 10_000, description });
const UUID_LIST = uuidList('Device UUIDs the account may bring; a tunnel with another UUID is refused');
const IDENTITY = {
  type: 'string',
  enum: ['bound', 'proven', 'accepted', 'provisioned', 'unverified'],
  description:
    '`bound`: the UUID was first known through this MPS account (a reconnect under it is the same device); `proven`: the tunnel presented the TLS certificate pinned for the device on the LAN; ' +
    '`accepted`: an operator accepted it; `provisioned`: the gateway generated the account for this UUID when it activated the device; `unverified`: the device is known from the LAN and the tunnel has not proven it is that device: nothing goes through it until it does or an operator accepts it',
};

export const MPS_ACCOUNT_SCHEMA = {
  type: 'object',
  required: ['id', 'username', 'createdAt'],
  properties: { id: { type: 'string' }, username: { type: 'string' }, createdAt: DATE_TIME, uuids: uuidList('Device UUIDs the account may bring (absent: any)') },
};

export const UPDATE_MPS_ACCOUNT_SCHEMA = Type.Object(
  { uuids: Type.Union([UUID_LIST, Type.Null()], { description: 'The UUIDs the account may bring; null: any' }) },
  { additionalProperties: false },
);

export const UUID_BINDING_SCHEMA = {
  type: 'object',
  required: ['uuid', 'accountId', 'username', 'boundAt', 'trust', 'trustedAt'],
  properties: {
    uuid: { type: 'string' },
    accountId: { type: 'string', description: 'The MPS account the UUID is bound to: a tunnel claiming the UUID under another is refused' },
    username: { type: 'string', description: "The account's user name when bound" },
    boundAt: DATE_TIME,
    trust: { anyOf: [{ type: 'string', enum: ['bound', 'proven', 'accepted', 'provisioned'] }, { type: 'null' }], description: "How the account's tunnels were established to be the device (null: not yet)" },
    trustedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

export const REBIND_SCHEMA = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 64, description: 'The MPS account the UUID is bound to from now on' }) }, { additionalProperties: false });

export const CREATE_MPS_ACCOUNT_SCHEMA = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\x21-\\x7e]+$', description: 'As provisioned on the devices (AMT allows at most 64 bytes)' }),
    password: Type.String({ minLength: 8, maxLength: 256, writeOnly: true, description: 'Write-only; sealed at rest' }),
    uuids: Type.Optional(UUID_LIST),
  },
  { additionalProperties: false },
);

export const CIRA_CONNECTION_SCHEMA = {
  type: 'object',
  required: ['deviceId', 'uuid', 'remoteAddress', 'connectedAt', 'lastKeepAliveAt', 'forwardedPorts', 'openChannels'],
  properties: {
    deviceId: { type: 'string' },
    uuid: { type: 'string', description: 'From the PROTOCOLVERSION message' },
    remoteAddress: { type: 'string' },
    remotePort: { type: 'integer' },
    username: { type: 'string', description: 'The MPS account the device signed in with' },
    connectedAt: DATE_TIME,
    lastKeepAliveAt: { type: ['string', 'null'], format: 'date-time' },
    forwardedPorts: { type: 'array', items: { type: 'integer' }, description: 'Ports the device registered with tcpip-forward' },
    openChannels: { type: 'integer' },
    identity: IDENTITY,
    verified: { type: 'boolean', description: 'false while `identity` is `unverified`' },
  },
};

export const CIRA_CERTIFICATE_SCHEMA = {
  type: 'object',
  required: ['pem', 'sha256'],
  properties: {
    pem: { type: 'string', description: 'The CIRA server certificate (PEM)' },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the certificate (DER), lower-case hex' },
  },
};

export const PAGING_QUERY = Type.Object({
  offset: Type.Integer({ minimum: 0, default: 0, description: 'Items to skip' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Items to return (at most 1000); without it, all' })),
});
