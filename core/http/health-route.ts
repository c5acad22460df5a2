import type { PluginContext } from '../plugin-api.js';

/** `GET /api/health`: no token; 200 once serving. */
export function registerHealthRoute(ctx: PluginContext, version: string, plugins: () => string[]): void {
  ctx.http.route({
    method: 'get',
    path: '/health',
    summary: 'Liveness: the gateway is serving',
    tags: ['health'],
    permission: 'public',
    responses: {
      200: {
        description: 'Serving',
        schema: {
          type: 'object',
          required: ['status', 'version', 'plugins'],
          properties: { status: { const: 'ok' }, version: { type: 'string' }, plugins: { type: 'array', items: { type: 'string' } } },
        },
      },
    },
    handler: () => ({ status: 'ok', version, plugins: plugins() }),
  });
}
