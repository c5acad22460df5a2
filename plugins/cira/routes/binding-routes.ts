/**
 * `GET /api/cira/bindings`, `PUT /api/cira/bindings/{uuid}`: which MPS account each device UUID is
 * bound to, and an operator's rebinding; `POST /api/cira/connections/{deviceId}/accept`: an operator
 * accepts an unverified tunnel as its device.
 */
import type { PluginContext } from '../../../core/plugin-api.js';
import type { AccountStore } from '../accounts/account-store.js';
import type { CiraService } from '../api.js';
import { CiraErrors } from '../errors.js';
import type { BindingStore } from '../identity/uuid-bindings.js';
import { REBIND_SCHEMA, UUID_BINDING_SCHEMA } from './cira-schemas.js';

const REF = { $ref: '#/components/schemas/CiraUuidBinding' };
const UUID_PARAM = { description: 'Device UUID', schema: { type: 'string', maxLength: 36 } };

export interface BindingRouteParts {
  cira: CiraService;
  accounts: AccountStore;
  bindings: BindingStore;
}

export function registerBindingRoutes(ctx: PluginContext, { cira, accounts, bindings }: BindingRouteParts): void {
  ctx.openapi.addSchema('CiraUuidBinding', UUID_BINDING_SCHEMA);
  const tags = ['cira'];
  ctx.http.route({
    method: 'get',
    path: '/bindings',
    summary: 'Device UUIDs and the MPS accounts they are bound to',
    description: 'A UUID is bound to the MPS account it first came in with; a tunnel claiming it under another account is refused.',
    tags,
    permission: 'cira:read',
    responses: { 200: { description: 'Bindings', schema: { type: 'array', items: REF } } },
    handler: () => bindings.list(),
  });
  ctx.http.route({
    method: 'put',
    path: '/bindings/:uuid',
    summary: 'Rebind a device UUID to another MPS account',
    description:
      "From now on only tunnels of `accountId` may bring the UUID; a live tunnel of another account is dropped. The new account's tunnels establish again that they are the device " +
      '(as a first tunnel does: at once when no other path knows the device, else by its pinned certificate or an operator accepting it).',
    tags,
    permission: 'cira:manage',
    params: { uuid: UUID_PARAM },
    body: REBIND_SCHEMA,
    responses: { 200: { description: 'The binding', schema: REF }, 404: { description: 'Unknown account' } },
    async handler(req) {
      const account = accounts.get(req.body.accountId);
      if (!account) throw CiraErrors.accountNotFound(req.body.accountId);
      const uuid = req.params.uuid.toLowerCase();
      const binding = await bindings.rebind(uuid, account);
      for (const connection of cira.connections()) if (connection.uuid === uuid && connection.username !== account.username) cira.drop(connection.deviceId);
      ctx.logger.warn('device UUID rebound to another MPS account', { uuid, accountId: account.id, username: account.username, by: req.user?.username ?? null });
      await ctx.useOptional('audit')?.record({ by: req, action: 'cira.binding.rebind', target: uuid, detail: { accountId: account.id, username: account.username } });
      return binding;
    },
  });
  ctx.http.route({
    method: 'post',
    path: '/connections/:deviceId/accept',
    summary: "Accept an unverified tunnel as the device's",
    description:
      'For a device known from the LAN whose tunnel cannot prove it is that device (no TLS certificate pinned, or no 16993 forwarded): from now on its tunnels under the same MPS account are the device. ' +
      'Check first that the device really dials in with this account (its `remoteAddress`, the provisioning records).',
    tags,
    permission: 'cira:manage',
    params: { deviceId: { description: 'Device id (as in GET /api/cira/connections)' } },
    responses: { 200: { description: 'The tunnel, now verified', schema: { $ref: '#/components/schemas/CiraConnection' } }, 404: { description: 'No live tunnel for this device' } },
    async handler(req) {
      const connection = await cira.verify(req.params.deviceId, 'accepted');
      if (!connection) throw CiraErrors.connectionNotFound(req.params.deviceId);
      ctx.logger.warn('unverified CIRA tunnel accepted by an operator', { deviceId: connection.deviceId, uuid: connection.uuid, username: connection.username, by: req.user?.username ?? null });
      await ctx.useOptional('audit')?.record({ by: req, action: 'cira.tunnel.accept', target: connection.deviceId, detail: { uuid: connection.uuid, username: connection.username, remoteAddress: connection.remoteAddress } });
      return connection;
    },
  });
}
