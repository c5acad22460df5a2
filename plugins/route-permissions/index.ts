/**
 * route-permissions: `GET /api/routes`, the front-end menu for the signed-in user. The home route
 * comes first and is never filtered; the rest come from configuration and the enabled plugins.
 */
import { definePlugin, type FrontendRoute } from '../../core/plugin-api.js';
import { visibleRoutes } from './route-filter.js';
import { ROUTE_PERMISSIONS_CONFIG_SCHEMA, type RoutePermissionsConfig } from './config.js';
import { FRONTEND_ROUTE_SCHEMA, type FrontendRouteView } from './route-schemas.js';

export default definePlugin<RoutePermissionsConfig>({
  name: 'route-permissions',
  version: '1.0.0',
  kernel: '1',
  prefix: '/api',
  configSchema: ROUTE_PERMISSIONS_CONFIG_SCHEMA,
  register(ctx) {
    ctx.openapi.addSchema('FrontendRoute', FRONTEND_ROUTE_SCHEMA);
    ctx.openapi.addTag('routes', 'The front-end route list');
    const home: FrontendRoute = { ...ctx.config.home, meta: { ...ctx.config.home.meta, permission: null } };
    ctx.http.route({
      method: 'get',
      path: '/routes',
      summary: 'Front-end routes the signed-in user may use, home first',
      description: 'The home route is always the first entry, even for a user without permissions. Routes of disabled plugins never appear.',
      tags: ['routes'],
      permission: 'authenticated',
      responses: { 200: { description: 'Routes in menu order', schema: { type: 'array', items: { $ref: '#/components/schemas/FrontendRoute' } } } },
      handler(req): FrontendRouteView[] {
        const granted = new Set(req.user?.permissions);
        const contributed = [...ctx.config.routes, ...ctx.plugins().flatMap((p) => p.routes)].filter((r) => r.path !== home.path);
        return [home, ...visibleRoutes(contributed, granted)];
      },
    });
  },
});
