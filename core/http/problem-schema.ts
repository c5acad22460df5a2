/**
 * The RFC 9457 problem document every error answer is (`application/problem+json`): a TypeBox
 * schema, its type derived. TypeBox only, so that the console can import the type.
 */
import { Type, type Static } from '@sinclair/typebox';

export const PROBLEM_FIELD_ERROR_SCHEMA = Type.Object({ path: Type.String(), message: Type.String() });

/** A problem detail of a validation failure: where and what. */
export type ProblemFieldError = Static<typeof PROBLEM_FIELD_ERROR_SCHEMA>;

export const PROBLEM_SCHEMA = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    errors: Type.Optional(Type.Array(PROBLEM_FIELD_ERROR_SCHEMA)),
  },
  { description: 'RFC 9457 problem details' },
);

export type Problem = Static<typeof PROBLEM_SCHEMA>;
