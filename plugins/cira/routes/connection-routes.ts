/** `GET /api/cira/connections`, `DELETE /api/cira/connections/{deviceId}`, `GET /api/cira/certificate`. */
import type { PluginContext } from '../../../core/plugin-api.js';
import type { CiraService } from '../api.js';
import { CiraErrors } from '../errors.js';
import { CIRA_CERTIFICATE_SCHEMA, CIRA_CONNECTION_SCHEMA, PAGING_QUERY } from './cira-schemas.js';

const REF = { $ref: '#/components/schemas/CiraConnection' };

export function registerConnectionRoutes(ctx: PluginContext, cira: CiraService): void {
  ctx.openapi.addSchema('CiraConnection', CIRA_CONNECTION_SCHEMA);
  ctx.openapi.addSchema('CiraCertificate', CIRA_CERTIFICATE_SCHEMA);
  const tags = ['cira'];
  ctx.http.route({
    method: 'get',
    path: '/connections',
    summary: 'Live CIRA tunnels',
    description: 'Devices that authenticated and registered their forwards, oldest connection first.',
    tags,
    permission: 'cira:read',
    query: PAGING_QUERY,
    responses: { 200: { description: 'Tunnels', schema: { type: 'array', items: REF }, headers: { 'X-Total-Count': { description: 'Live tunnels', schema: { type: 'integer' } } } } },
    handler(c) {
      const { offset, limit } = c.state.query as { offset: number; limit?: number };
      const all = cira.connections();
      c.set('X-Total-Count', String(all.length));
      return all.slice(offset, limit === undefined ? undefined : offset + limit);
    },
  });
  ctx.http.route({
    method: 'delete',
    path: '/connections/:deviceId',
    summary: "Drop a device's tunnel",
    description: 'Sends APF DISCONNECT and closes the socket; the device goes offline until it dials in again.',
    tags,
    permission: 'cira:manage',
    params: { deviceId: { description: 'Device id (as in GET /api/cira/connections)' } },
    responses: { 204: { description: 'Dropped' }, 404: { description: 'No live tunnel for this device' } },
    handler(c) {
      if (!cira.drop(c.params.deviceId!)) throw CiraErrors.connectionNotFound(c.params.deviceId!);
      c.status = 204;
    },
  });
  ctx.http.route({
    method: 'get',
    path: '/certificate',
    summary: 'The CIRA server certificate',
    description: 'What provisioning tools need to make devices trust the CIRA server.',
    tags,
    permission: 'cira:read',
    responses: { 200: { description: 'Certificate', schema: { $ref: '#/components/schemas/CiraCertificate' } } },
    handler: () => cira.certificate(),
  });
}
