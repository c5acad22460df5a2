/**
 * The audit trail's record as `GET /api/audit` answers it, and that route's query: TypeBox schemas,
 * their types derived. TypeBox and core/validation/schema-types only, so that the console can import the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, NullableString, StringEnum } from '../../core/validation/schema-types.js';

const TEXT = { minLength: 1, maxLength: 256 };

export const AUDIT_OUTCOMES = ['success', 'failure'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** JSON-able facts about the action. Never a secret: keys that name one (password, token, ...) are redacted. */
export type AuditDetail = Record<string, unknown>;

/**
 * Records are kept in classes, each with its own retention bound: `operator` (what signed-in users
 * and the kernel did, recorded one by one), and `sign-in-failures` (failed and refused sign-ins,
 * which anyone can cause, aggregated per client address, door and window), so that noise can never
 * push operator records out.
 */
export const AUDIT_CLASSES = ['operator', 'sign-in-failures'] as const;
export type AuditClass = (typeof AUDIT_CLASSES)[number];

/** A stored record, as `GET /api/audit` returns it. */
export const AUDIT_RECORD_SCHEMA = Type.Object({
  id: Type.String({ description: 'Increasing with the order records of its class were written (`f`-prefixed for `sign-in-failures`)' }),
  class: StringEnum(AUDIT_CLASSES, {
    type: 'string',
    description:
      '`operator`: one record per action; `sign-in-failures`: failed and refused sign-ins aggregated per client address, door and window (`detail`: `door`, `attempts`, `failures`, `refused`, `names`, `lastAt`), kept under bounds of their own',
  }),
  at: DateTime(),
  user: NullableString({ description: 'The signed-in user who acted (for a sign-in: the name tried)' }),
  address: NullableString({ description: 'The client address the request came from' }),
  action: Type.String({ description: 'e.g. `auth.sign-in`, `power.change`, `scan.start`' }),
  target: NullableString({ description: 'What it was done to: a device id, user name, scan id, ...' }),
  outcome: StringEnum(AUDIT_OUTCOMES, { type: 'string' }),
  detail: Type.Unsafe<AuditDetail>({ type: 'object', description: 'Facts of the action (never a secret); on failure `error`, the problem code' }),
});

export type AuditRecord = Static<typeof AUDIT_RECORD_SCHEMA>;

export const AUDIT_QUERY_SCHEMA = Type.Object(
  {
    user: Type.Optional(Type.String(TEXT)),
    action: Type.Optional(Type.String({ ...TEXT, description: 'Exact, or a prefix ending in `*` (`power.*`)' })),
    target: Type.Optional(Type.String(TEXT)),
    outcome: Type.Optional(StringEnum(AUDIT_OUTCOMES, { type: 'string' })),
    from: Type.Optional(DateTime({ description: 'Records at or after this time' })),
    to: Type.Optional(DateTime({ description: 'Records at or before this time' })),
    class: Type.Optional(StringEnum(AUDIT_CLASSES, { type: 'string', description: 'Only records of this retention class' })),
    offset: Type.Integer({ minimum: 0, default: 0 }),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  },
  { additionalProperties: false },
);

/** What `GET /api/audit` filters and pages by. */
export type AuditQuery = Static<typeof AUDIT_QUERY_SCHEMA>;
