/**
 * A front-end route as `GET /api/routes` answers it: a TypeBox schema, its type derived (children
 * nest through the component's `$ref`). TypeBox and core/validation/schema-types only, so that the
 * console can import the type.
 */
import { Type, type Static } from '@sinclair/typebox';
import { NullableString } from '../../core/validation/schema-types.js';

const CLOSED = { additionalProperties: false } as const;

const FRONTEND_ROUTE_FIELDS = {
  path: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  meta: Type.Object(
    {
      title: Type.String(),
      icon: Type.Optional(Type.String()),
      permission: NullableString({ description: 'Needed to see the route; null: every signed-in user' }),
      order: Type.Optional(Type.Number()),
    },
    CLOSED,
  ),
};

const FRONTEND_ROUTE_NODE = Type.Object(FRONTEND_ROUTE_FIELDS, CLOSED);

/** A front-end route; its `children` are routes too. */
export type FrontendRouteView = Static<typeof FRONTEND_ROUTE_NODE> & { children?: FrontendRouteView[] };

export const FRONTEND_ROUTE_SCHEMA = Type.Object(
  { ...FRONTEND_ROUTE_FIELDS, children: Type.Optional(Type.Array(Type.Unsafe<FrontendRouteView>({ $ref: '#/components/schemas/FrontendRoute' }))) },
  CLOSED,
);
