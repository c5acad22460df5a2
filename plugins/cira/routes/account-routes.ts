/** `GET/POST /api/cira/accounts`, `DELETE /api/cira/accounts/{id}`: the MPS accounts devices sign in with. */
import type { PluginContext } from '../../../core/plugin-api.js';
import type { AccountStore } from '../accounts/account-store.js';
import { CREATE_MPS_ACCOUNT_SCHEMA, MPS_ACCOUNT_SCHEMA, UPDATE_MPS_ACCOUNT_SCHEMA } from './cira-schemas.js';

const REF = { $ref: '#/components/schemas/MpsAccount' };

export function registerAccountRoutes(ctx: PluginContext, accounts: AccountStore): void {
  ctx.openapi.addSchema('MpsAccount', MPS_ACCOUNT_SCHEMA);
  const tags = ['cira'];
  ctx.http.route({
    method: 'get',
    path: '/accounts',
    summary: 'List MPS accounts',
    tags,
    permission: 'cira:read',
    responses: { 200: { description: 'Accounts (never their passwords)', schema: { type: 'array', items: REF } } },
    handler: () => accounts.list(),
  });
  ctx.http.route({
    method: 'post',
    path: '/accounts',
    summary: 'Store an MPS account',
    description: 'Devices provisioned with these credentials may open CIRA tunnels. The password is write-only and sealed at rest. With `uuids`, only devices with those UUIDs may sign in with it.',
    tags,
    permission: 'cira:manage',
    body: CREATE_MPS_ACCOUNT_SCHEMA,
    responses: { 201: { description: 'Stored', schema: REF }, 409: { description: 'An account with this user name exists' } },
    async handler(req, reply) {
      const created = await accounts.create(req.body);
      await ctx.useOptional('audit')?.record({ by: req, action: 'cira.account.create', target: created.id, detail: { username: created.username } });
      reply.status(201).header('Location', `${ctx.http.prefix}/accounts/${created.id}`);
      return created;
    },
  });
  ctx.http.route({
    method: 'patch',
    path: '/accounts/:id',
    summary: "Limit an MPS account to the device UUIDs it serves",
    description: 'A tunnel of this account claiming another UUID is refused (logged as a warning). `null` lifts the limit. Tunnels already up stay.',
    tags,
    permission: 'cira:manage',
    params: { id: { description: 'Account id' } },
    body: UPDATE_MPS_ACCOUNT_SCHEMA,
    responses: { 200: { description: 'The account', schema: REF }, 404: { description: 'Unknown account' } },
    async handler(req) {
      const account = await accounts.update(req.params.id, { uuids: req.body.uuids });
      await ctx.useOptional('audit')?.record({ by: req, action: 'cira.account.update', target: req.params.id, detail: { uuids: req.body.uuids } });
      return account;
    },
  });
  ctx.http.route({
    method: 'delete',
    path: '/accounts/:id',
    summary: 'Delete an MPS account',
    description: 'Tunnels already open stay up; the account can no longer sign in.',
    tags,
    permission: 'cira:manage',
    params: { id: { description: 'Account id' } },
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Unknown account' } },
    async handler(req) {
      await accounts.delete(req.params.id);
      await ctx.useOptional('audit')?.record({ by: req, action: 'cira.account.delete', target: req.params.id });
    },
  });
}
