/** JSON Schemas of the cira routes (added to the OpenAPI document). */
const DATE_TIME = { type: 'string', format: 'date-time' };

export const MPS_ACCOUNT_SCHEMA = {
  type: 'object',
  required: ['id', 'username', 'createdAt'],
  properties: { id: { type: 'string' }, username: { type: 'string' }, createdAt: DATE_TIME },
};

export const CREATE_MPS_ACCOUNT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['username', 'password'],
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[\\x21-\\x7e]+$', description: 'As provisioned on the devices (AMT allows at most 64 bytes)' },
    password: { type: 'string', minLength: 8, maxLength: 256, writeOnly: true, description: 'Write-only; sealed at rest' },
  },
};

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

export const PAGING_QUERY = {
  type: 'object',
  properties: {
    offset: { type: 'integer', minimum: 0, default: 0, description: 'Items to skip' },
    limit: { type: 'integer', minimum: 1, maximum: 1000, description: 'Items to return (at most 1000); without it, all' },
  },
};
