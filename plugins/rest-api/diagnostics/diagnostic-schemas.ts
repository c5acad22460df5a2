import { Type } from '@sinclair/typebox';

export const TEST_CREDENTIAL_QUERY = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, description: 'Credential id (default: the default credential)' })),
  ip: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 36,
      description: 'The device: its IPv4 address, device id or UUID. An address several devices share (CIRA devices behind one NAT) is 409 `GW_ERR_TARGET_AMBIGUOUS`: name the device by id or UUID.',
    }),
  ),
});

export const TEST_WSMAN_QUERY = Type.Object({ credentialId: Type.Optional(Type.String({ minLength: 1 })) });

export const TEST_CREDENTIAL_RESULT_SCHEMA = {
  type: 'object',
  required: ['credentialId', 'username', 'unsealed'],
  properties: {
    credentialId: { type: 'string' },
    username: { type: 'string' },
    unsealed: { type: 'boolean', description: 'The stored password could be unsealed with the master key' },
    error: { type: 'string', description: 'Why unsealing failed' },
    device: {
      type: 'object',
      required: ['ipAddress', 'authenticated', 'status'],
      properties: {
        ipAddress: { type: 'string' },
        deviceId: { type: 'string', description: 'The known device checked; absent for an address the gateway does not know' },
        authenticated: { type: 'boolean' },
        status: { enum: ['ok', 'unauthorized', 'unreachable', 'error', 'locked-out-risk'] },
        error: { type: 'string' },
      },
    },
  },
};

export const TEST_WSMAN_RESULT_SCHEMA = {
  type: 'object',
  required: ['ipAddress', 'reachable', 'port', 'tls', 'authenticated', 'firmwareVersion', 'provisioningState', 'hostname', 'elapsedMs'],
  properties: {
    ipAddress: { type: 'string' },
    deviceId: { type: 'string', description: 'The known device checked; absent for an address the gateway does not know' },
    reachable: { type: 'boolean' },
    port: { type: ['integer', 'null'] },
    tls: { type: 'boolean' },
    authenticated: { type: 'boolean' },
    firmwareVersion: { type: ['string', 'null'] },
    provisioningState: { enum: ['PRE', 'IN', 'POST', null] },
    hostname: { type: ['string', 'null'] },
    elapsedMs: { type: 'number' },
    error: { type: 'string' },
  },
};
