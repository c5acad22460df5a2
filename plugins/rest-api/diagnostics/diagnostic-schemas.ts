/** The diagnostics' queries and answers: TypeBox schemas, their types derived (the console imports them). */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, NullableEnum, NullableString, StringEnum } from '../../../core/validation/schema-types.js';
import { AUTH_STATUSES, PROVISIONING_STATES } from '../../devices/registry/device-schemas.js';

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

export const TEST_CREDENTIAL_RESULT_SCHEMA = Type.Object({
  credentialId: Type.String(),
  username: Type.String(),
  unsealed: Type.Boolean({ description: 'The stored password could be unsealed with the master key' }),
  error: Type.Optional(Type.String({ description: 'Why unsealing failed' })),
  device: Type.Optional(
    Type.Object({
      ipAddress: Type.String(),
      deviceId: Type.Optional(Type.String({ description: 'The known device checked; absent for an address the gateway does not know' })),
      authenticated: Type.Boolean(),
      status: StringEnum(AUTH_STATUSES),
      error: Type.Optional(Type.String()),
    }),
  ),
});

export type CredentialTestResult = Static<typeof TEST_CREDENTIAL_RESULT_SCHEMA>;

export const TEST_WSMAN_RESULT_SCHEMA = Type.Object({
  ipAddress: Type.String(),
  deviceId: Type.Optional(Type.String({ description: 'The known device checked; absent for an address the gateway does not know' })),
  reachable: Type.Boolean(),
  port: Nullable(Type.Integer()),
  tls: Type.Boolean(),
  authenticated: Type.Boolean(),
  firmwareVersion: NullableString(),
  provisioningState: NullableEnum(PROVISIONING_STATES),
  hostname: NullableString(),
  elapsedMs: Type.Number(),
  error: Type.Optional(Type.String()),
});

export type WsmanTestResult = Static<typeof TEST_WSMAN_RESULT_SCHEMA>;
