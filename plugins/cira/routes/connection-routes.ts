/** `GET /api/cira/connections`, `DELETE /api/cira/connections/{deviceId}`, `GET /api/cira/certificate`. */
import type { PluginContext } from '../../../core/plugin-api.js';
import type { CiraService } from '../api.js';
import { CiraErrors } from '../errors.js';
import type { TunnelDirectory } from '../cluster/tunnel-directory.js';
import { CIRA_CERTIFICATE_SCHEMA, CIRA_CONNECTION_SCHEMA, PAGING_QUERY } from './cira-schemas.js';

const REF = { $ref: '#/components/schemas/CiraConnection' };

/** @param directory in a cluster, the tunnels of the other instances: listed too, each with its `instance`. */
export function registerConnectionRoutes(ctx: PluginContext, cira: CiraService, directory?: TunnelDirectory): void {
  ctx.openapi.addSchema('CiraConnection', CIRA_CONNECTION_SCHEMA);
  ctx.openapi.addSchema('CiraCertificate', CIRA_CERTIFICATE_SCHEMA);
  const tags = ['cira'];
  ctx.http.route({
    method: 'get',
    path: '/connections',
    summary: 'Live CIRA tunnels',
    description: 'Devices that authenticated and registered their forwards, oldest connection first. In a cluster, the tunnels of every instance that is up, each with `instance` (this instance\'s first).',
    tags,
    permission: 'cira:read',
    query: PAGING_QUERY,
    responses: { 200: { description: 'Tunnels', schema: { type: 'array', items: REF }, headers: { 'X-Total-Count': { description: 'Live tunnels', schema: { type: 'integer' } } } } },
    handler(req, reply) {
      const { offset, limit } = req.query;
      const local = cira.connections();
      const all = directory ? [...local.map((c) => ({ ...c, instance: ctx.cluster.self.name })), ...directory.remote()] : local;
      reply.header('X-Total-Count', String(all.length));
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
    async handler(req) {
      const remoteAddress = cira.connection(req.params.deviceId)?.remoteAddress;
      if (!cira.drop(req.params.deviceId)) throw CiraErrors.connectionNotFound(req.params.deviceId);
      await ctx.useOptional('audit')?.record({ by: req, action: 'cira.tunnel.drop', target: req.params.deviceId, detail: { remoteAddress } });
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
