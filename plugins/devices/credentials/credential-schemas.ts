import { Type } from '@sinclair/typebox';

const USERNAME = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[^\\s:\\u0000-\\u001f\\u007f]+$',
  'x-pattern-message': 'must not contain spaces, colons or control characters',
  description: 'Digest user name (no spaces, colons or control characters)',
});
const PASSWORD = Type.String({ minLength: 1, maxLength: 256, writeOnly: true, description: 'Write-only: never returned' });
const NAME = Type.String({ minLength: 1, maxLength: 100 });

export const CREDENTIAL_SCHEMA = {
  type: 'object',
  required: ['id', 'name', 'username', 'isDefault', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    username: { type: 'string' },
    isDefault: { type: 'boolean', description: 'At most one credential is the default; it is tried first' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

export const CREATE_CREDENTIAL_SCHEMA = Type.Object(
  { name: Type.Optional(NAME), username: USERNAME, password: PASSWORD, isDefault: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

export const UPDATE_CREDENTIAL_SCHEMA = Type.Partial(CREATE_CREDENTIAL_SCHEMA, { additionalProperties: false, minProperties: 1 });
