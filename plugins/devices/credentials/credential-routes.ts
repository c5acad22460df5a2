import type { PluginContext } from '../../../core/plugin-api.js';
import type { ManagedCredentialVault } from './credential-vault.js';
import { CREATE_CREDENTIAL_SCHEMA, CREDENTIAL_SCHEMA, UPDATE_CREDENTIAL_SCHEMA } from './credential-schemas.js';

const REF = { $ref: '#/components/schemas/Credential' };
const params = { id: { description: 'Credential id' } };

/** `GET/POST /api/credentials`, `PUT/DELETE /api/credentials/{id}` (fixed paths). */
export function registerCredentialRoutes(ctx: PluginContext, vault: ManagedCredentialVault): void {
  ctx.openapi.addSchema('Credential', CREDENTIAL_SCHEMA);
  ctx.openapi.addTag('credentials', 'Device credentials; passwords are write-only and sealed at rest');
  const tags = ['credentials'];
  const audit = ctx.useOptional('audit');
  ctx.http.route({
    method: 'get',
    path: '/credentials',
    summary: 'List stored credentials, the default first',
    tags,
    permission: 'credentials:read',
    responses: { 200: { description: 'Credentials (never their passwords)', schema: { type: 'array', items: REF } } },
    handler: () => vault.list(),
  });
  ctx.http.route({
    method: 'post',
    path: '/credentials',
    summary: 'Store a credential',
    description: 'The first credential becomes the default. Setting isDefault clears it on every other credential in the same write.',
    tags,
    permission: 'credentials:write',
    body: CREATE_CREDENTIAL_SCHEMA,
    responses: { 201: { description: 'Stored', schema: REF } },
    async handler(req, reply) {
      const created = await vault.create(req.body);
      await audit?.record({ by: req, action: 'credential.create', target: created.id, detail: { name: created.name, username: created.username, isDefault: created.isDefault } });
      reply.status(201).header('Location', `/api/credentials/${created.id}`);
      return created;
    },
  });
  ctx.http.route({
    method: 'put',
    path: '/credentials/:id',
    summary: 'Change a credential',
    tags,
    permission: 'credentials:write',
    params,
    body: UPDATE_CREDENTIAL_SCHEMA,
    responses: { 200: { description: 'Changed', schema: REF }, 404: { description: 'Unknown credential' } },
    async handler(req) {
      const updated = await vault.update(req.params.id, req.body);
      await audit?.record({ by: req, action: 'credential.update', target: updated.id, detail: { changed: Object.keys(req.body), name: updated.name, username: updated.username } });
      return updated;
    },
  });
  ctx.http.route({
    method: 'delete',
    path: '/credentials/:id',
    summary: 'Delete a credential',
    tags,
    permission: 'credentials:write',
    params,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Unknown credential' } },
    async handler(req) {
      await vault.delete(req.params.id);
      await audit?.record({ by: req, action: 'credential.delete', target: req.params.id });
    },
  });
}
