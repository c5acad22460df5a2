/** Options of the route-permissions plugin (`plugins.route-permissions.options`); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import type { FrontendRoute } from '../../core/plugin-api.js';
import { NullableString, Section } from '../../core/validation/schema-types.js';

const META_FIELDS = { title: Type.String(), icon: Type.Optional(Type.String()), order: Type.Optional(Type.Number()) };

export const ROUTE_PERMISSIONS_CONFIG_SCHEMA = Section({
  home: Type.Object(
    { path: Type.Literal('/'), name: Type.String(), meta: Type.Object({ ...META_FIELDS, permission: Type.Optional(NullableString()) }) },
    { default: { path: '/', name: 'home', meta: { title: 'Home', icon: 'home', permission: null, order: 0 } } },
  ),
  routes: Type.Array(
    Type.Object({
      path: Type.String(),
      name: Type.String(),
      meta: Type.Object({ ...META_FIELDS, permission: NullableString() }),
      // Nested routes are checked as routes where they are served, not here.
      children: Type.Optional(Type.Unsafe<FrontendRoute[]>({ type: 'array' })),
    }),
    { default: [], description: 'Site routes added to those of the enabled plugins' },
  ),
});

export type RoutePermissionsConfig = Static<typeof ROUTE_PERMISSIONS_CONFIG_SCHEMA>;
