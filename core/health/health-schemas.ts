/**
 * What `GET /api/health` and `GET /api/health/ready` answer: TypeBox schemas, their types derived.
 * TypeBox only, so that the console can import the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../validation/schema-types.js';

export const HEALTH_SCHEMA = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String(),
  plugins: Type.Array(Type.String()),
  store: Type.Optional(
    Type.Object(
      { state: StringEnum(['read-only', 'damaged']), reason: Type.String() },
      { description: 'Present only while the store is read-only or damaged: the gateway still serves, a restart would not help' },
    ),
  ),
});

export type Health = Static<typeof HEALTH_SCHEMA>;

const CHECKS = Type.Array(Type.Object({ name: Type.String(), ready: Type.Boolean(), reason: Type.Optional(Type.String()) }));

export const READY_SCHEMA = Type.Object({ status: Type.Literal('ready'), checks: CHECKS });
export const NOT_READY_SCHEMA = Type.Object({ status: Type.Literal('not ready'), checks: CHECKS });

export type Readiness = Static<typeof READY_SCHEMA> | Static<typeof NOT_READY_SCHEMA>;
