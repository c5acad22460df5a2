/** A device's sign-in memory as `GET /api/devices/{id}/sign-in` answers it: a TypeBox schema, its type derived. */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, NullableString, StringEnum } from '../../../core/validation/schema-types.js';

const NullableTime = (description?: string) => Nullable(DateTime(description ? { description } : {}));

export const SIGN_IN_SCHEMA = Type.Object({
  deviceId: Type.String(),
  ipAddress: Type.String(),
  authStatus: Type.String(),
  consecutiveFailures: Type.Integer({ description: 'Failed logins in a row the gateway caused since the last success, lockout page or reset' }),
  budget: Type.Integer({ description: 'Failed logins in a row allowed: `signIn.lockoutThreshold` minus `signIn.safetyMargin`' }),
  remaining: Type.Integer({ description: 'What is left of the budget, less what operations under way have reserved' }),
  lastFailureAt: Type.Optional(NullableTime()),
  lastSuccessAt: Type.Optional(NullableTime()),
  lockedOutAt: Type.Optional(NullableTime('When the device last answered with its lockout page')),
  workingCredentialId: Type.Optional(NullableString()),
  refused: Type.Array(Type.Object({ credentialId: Type.String(), name: NullableString(), at: DateTime() }), {
    description: 'Credentials the device refused in their current version; not tried there again until changed or reset',
  }),
  untried: Type.Array(Type.String(), { description: 'Stored credentials not yet refused by the device (the next ones tried)' }),
  paused: Nullable(
    Type.Object(
      { reason: StringEnum(['locked-out', 'budget-spent']), detail: Type.String(), until: Type.Optional(DateTime()) },
      { description: 'Set while sign-ins to the device are paused' },
    ),
  ),
});

export type DeviceSignIn = Static<typeof SIGN_IN_SCHEMA>;
