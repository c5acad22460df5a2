import { Type } from '@sinclair/typebox';
import type { AccessRevokedEvent, PluginContext, RouteRequest, UserChangedEvent } from '../plugin-api.js';
import { HttpError } from '../http/http-error.js';
import type { AuthService } from './auth-service.js';
import { ALL_PERMISSIONS, USERS_MANAGE } from './core-permissions.js';
import { hashPassword } from './password-hash.js';
import { assertManagerRemains, assertMayGrant, assertMayManage, userMutations } from './user-authority.js';
import { newUserId, type StoredUser } from './user-store.js';
import type { User } from './user-schemas.js';

const USERNAME = Type.String({ pattern: '^[A-Za-z0-9._@-]{1,64}$', 'x-pattern-message': 'must be 1 to 64 letters, digits or . _ @ -' });
const PASSWORD = Type.String({ minLength: 8, maxLength: 256, description: 'Write-only' });
const PERMISSIONS = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { uniqueItems: true, maxItems: 100, description: "Permission names, or '*' for all" });
const CREATE_USER = Type.Object({ username: USERNAME, password: PASSWORD, permissions: PERMISSIONS }, { additionalProperties: false });
const UPDATE_USER = Type.Object({ password: Type.Optional(PASSWORD), permissions: Type.Optional(PERMISSIONS) }, { additionalProperties: false, minProperties: 1 });
const USER_REF = { $ref: '#/components/schemas/User' };

/** CRUD of gateway users at `/api/users`, permission `users:manage`. */
export function registerUserRoutes(ctx: PluginContext, auth: AuthService): void {
  const view = (user: StoredUser): User => ({ ...auth.toAuthenticated(user), createdAt: user.createdAt, updatedAt: user.updatedAt });
  const checkPermissions = (permissions: string[]) => {
    const known = auth.allPermissions();
    const unknown = permissions.filter((p) => p !== ALL_PERMISSIONS && !known.includes(p));
    if (unknown.length) {
      throw new HttpError(400, 'GW_ERR_VALIDATION', 'unknown permissions', { errors: unknown.map((p) => ({ path: 'body.permissions', message: `'${p}' is not a known permission` })) });
    }
  };
  const load = async (username: string) => {
    const user = await auth.users.get(username);
    if (!user) throw new HttpError(404, 'GW_ERR_USER_NOT_FOUND', `no user '${username}'`);
    return user;
  };
  const mutation = userMutations(auth.users);
  const othersThan = async (username: string) => (await auth.users.list()).filter((u) => u.username !== username);
  const params = { username: { description: 'The user name' } };
  const common = { tags: ['users'], permission: USERS_MANAGE };
  const changed = (req: RouteRequest, change: UserChangedEvent['change'], username: string, what: Pick<UserChangedEvent, 'permissions' | 'passwordChanged'> = {}) =>
    ctx.events.publishAwaited('UserChanged', { user: req.user?.username ?? null, address: req.ip, change, username, ...what });
  const revoked = (req: RouteRequest, user: StoredUser, reason: AccessRevokedEvent['reason'], tokenIds: string[] = []) =>
    ctx.events.publishAwaited('AccessRevoked', { user: req.user?.username ?? null, address: req.ip, userId: user.id, username: user.username, reason, tokenIds });

  ctx.http.route({
    ...common,
    method: 'get',
    path: '/users',
    summary: 'List users',
    responses: { 200: { description: 'Users', schema: { type: 'array', items: USER_REF } } },
    handler: async () => (await auth.users.list()).map(view),
  });
  ctx.http.route({
    ...common,
    method: 'post',
    path: '/users',
    summary: 'Create a user',
    body: CREATE_USER,
    responses: { 201: { description: 'Created', schema: USER_REF }, 403: { description: 'A permission the caller does not hold itself (`GW_ERR_PERMISSION_NOT_HELD`)' }, 409: { description: 'The user exists' } },
    async handler(req, reply) {
      const { body } = req;
      checkPermissions(body.permissions);
      const passwordHash = await hashPassword(body.password);
      const user = await mutation(req.user!.id, async (caller) => {
        assertMayGrant(caller, body.permissions);
        if (await auth.users.get(body.username)) throw new HttpError(409, 'GW_ERR_USER_EXISTS', `user '${body.username}' exists`);
        const now = new Date().toISOString();
        const created: StoredUser = { id: newUserId(), username: body.username, passwordHash, permissions: body.permissions, createdAt: now, updatedAt: now };
        await auth.users.put(created);
        return created;
      });
      await changed(req, 'created', user.username, { permissions: user.permissions, passwordChanged: true });
      reply.status(201);
      return view(user);
    },
  });
  ctx.http.route({
    ...common,
    method: 'get',
    path: '/users/:username',
    summary: 'Get a user',
    params,
    responses: { 200: { description: 'The user', schema: USER_REF }, 404: { description: 'Unknown user' } },
    handler: async (req) => view(await load(req.params.username)),
  });
  ctx.http.route({
    ...common,
    method: 'put',
    path: '/users/:username',
    summary: "Change a user's password or permissions",
    description:
      "Changing the password revokes the user's tokens, and with them its remote console sessions and hub connections; taking permissions away ends what needed them. The caller must hold every permission the user holds (`GW_ERR_USER_OUTRANKS_YOU`) and every permission it grants (`GW_ERR_PERMISSION_NOT_HELD`).",
    params,
    body: UPDATE_USER,
    responses: { 200: { description: 'Updated', schema: USER_REF }, 403: { description: 'The user holds, or the change grants, a permission the caller does not hold' }, 404: { description: 'Unknown user' }, 409: { description: 'Would leave no user manager' } },
    async handler(req) {
      const { body } = req;
      if (body.permissions) checkPermissions(body.permissions);
      const passwordHash = body.password ? await hashPassword(body.password) : undefined;
      const updated = await mutation(req.user!.id, async (caller) => {
        const current = await load(req.params.username);
        assertMayManage(caller, current);
        const user: StoredUser = { ...current, updatedAt: new Date().toISOString() };
        if (body.permissions) {
          assertMayGrant(caller, body.permissions);
          user.permissions = body.permissions;
          assertManagerRemains([...(await othersThan(user.username)), user]);
        }
        if (passwordHash) user.passwordHash = passwordHash;
        await auth.users.put(user);
        return { user, tokenIds: passwordHash ? await auth.tokens.revokeUser(user.id) : [] };
      });
      await changed(req, 'updated', updated.user.username, { ...(body.permissions ? { permissions: body.permissions } : {}), passwordChanged: body.password !== undefined });
      if (passwordHash) await revoked(req, updated.user, 'password-changed', updated.tokenIds);
      else await revoked(req, updated.user, 'permissions-changed');
      return view(updated.user);
    },
  });
  ctx.http.route({
    ...common,
    method: 'delete',
    path: '/users/:username',
    summary: 'Delete a user and revoke their tokens',
    description: 'The caller must hold every permission the user holds. Deletions and changes run one at a time, so the last user manager is never removed.',
    params,
    responses: { 204: { description: 'Deleted' }, 403: { description: 'The user holds a permission the caller does not hold (`GW_ERR_USER_OUTRANKS_YOU`)' }, 404: { description: 'Unknown user' }, 409: { description: 'Would leave no user manager' } },
    async handler(req) {
      const deleted = await mutation(req.user!.id, async (caller) => {
        const user = await load(req.params.username);
        assertMayManage(caller, user);
        assertManagerRemains(await othersThan(user.username));
        await auth.users.delete(user.username);
        return { user, tokenIds: await auth.tokens.revokeUser(user.id) };
      });
      await changed(req, 'deleted', deleted.user.username);
      await revoked(req, deleted.user, 'deleted', deleted.tokenIds);
    },
  });
}
