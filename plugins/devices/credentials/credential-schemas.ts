/** A stored device credential as the API answers it (never its password), and its requests: TypeBox schemas, types derived. */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime } from '../../../core/validation/schema-types.js';

const USERNAME = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[^\\s:\\u0000-\\u001f\\u007f]+$',
  'x-pattern-message': 'must not contain spaces, colons or control characters',
  description: 'Digest user name (no spaces, colons or control characters)',
});
const PASSWORD = Type.String({ minLength: 1, maxLength: 256, writeOnly: true, description: 'Write-only: never returned' });
const NAME = Type.String({ minLength: 1, maxLength: 100 });

export const CREDENTIAL_SCHEMA = Type.Object({
  id: Type.String(),
  name: Type.String(),
  username: Type.String(),
  isDefault: Type.Boolean({ description: 'At most one credential is the default; it is tried first' }),
  /**
   * The UUID of the one device this credential belongs to (its own AMT password, set when the
   * gateway activated it): in no credential list, tried for that device first and for no other.
   */
  boundTo: Type.Optional(Type.String({ description: 'The UUID of the one device this credential belongs to (set when the gateway activated it); such a credential is in no list' })),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});

export type Credential = Static<typeof CREDENTIAL_SCHEMA>;

export const CREATE_CREDENTIAL_SCHEMA = Type.Object(
  { name: Type.Optional(NAME), username: USERNAME, password: PASSWORD, isDefault: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

export const UPDATE_CREDENTIAL_SCHEMA = Type.Partial(CREATE_CREDENTIAL_SCHEMA, { additionalProperties: false, minProperties: 1 });
