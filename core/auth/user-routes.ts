import type { PluginContext, RouteRequest, UserChangedEvent } from '../plugin-api.js';
import { HttpError } from '../http/http-error.js';
import type { AuthService } from './auth-service.js';
import { ALL_PERMISSIONS, USERS_MANAGE } from './core-permissions.js';
import { hashPassword } from './password-hash.js';
import type { StoredUser } from './user-store.js';

interface CreateUserBody {
  username: string;
  password: string;
  permissions: string[];
}
type UpdateUserBody = Partial<Omit<CreateUserBody, 'username'>>;

const USERNAME = { type: 'string', pattern: '^[A-Za-z0-9._@-]{1,64}$', 'x-pattern-message': 'must be 1 to 64 letters, digits or . _ @ -' };
const PASSWORD = { type: 'string', minLength: 8, maxLength: 256, description: 'Write-only' };
const PERMISSIONS = { type: 'array', uniqueItems: true, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 64 }, description: "Permission names, or '*' for all" };
const USER_REF = { $ref: '#/components/schemas/User' };

export const USER_SCHEMA = {
  type: 'object',
  required: ['username', 'permissions', 'createdAt', 'updatedAt'],
  properties: {
    username: { type: 'string' },
    permissions: { type: 'array', items: { type: 'string' }, description: 'Effective permissions' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

/** CRUD of gateway users at `/api/users`, permission `users:manage`. */
export function registerUserRoutes(ctx: PluginContext, auth: AuthService): void {
  const view = (user: StoredUser) => ({ ...auth.toAuthenticated(user), createdAt: user.createdAt, updatedAt: user.updatedAt });
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
  const managers = async () => (await auth.users.list()).filter((u) => u.permissions.includes(ALL_PERMISSIONS) || u.permissions.includes(USERS_MANAGE));
  const params = { username: { description: 'The user name' } };
  const common = { tags: ['users'], permission: USERS_MANAGE };
  type ByName = { Params: { username: string } };
  const changed = (req: RouteRequest, change: UserChangedEvent['change'], username: string, what: Pick<UserChangedEvent, 'permissions' | 'passwordChanged'> = {}) =>
    ctx.events.publishAwaited('UserChanged', { user: req.user?.username ?? null, address: req.ip, change, username, ...what });

  ctx.http.route({
    ...common,
    method: 'get',
    path: '/users',
    summary: 'List users',
    responses: { 200: { description: 'Users', schema: { type: 'array', items: USER_REF } } },
    handler: async () => (await auth.users.list()).map(view),
  });
  ctx.http.route<{ Body: CreateUserBody }>({
    ...common,
    method: 'post',
    path: '/users',
    summary: 'Create a user',
    body: { type: 'object', additionalProperties: false, required: ['username', 'password', 'permissions'], properties: { username: USERNAME, password: PASSWORD, permissions: PERMISSIONS } },
    responses: { 201: { description: 'Created', schema: USER_REF }, 409: { description: 'The user exists' } },
    async handler(req, reply) {
      const { body } = req;
      checkPermissions(body.permissions);
      if (await auth.users.get(body.username)) throw new HttpError(409, 'GW_ERR_USER_EXISTS', `user '${body.username}' exists`);
      const now = new Date().toISOString();
      const user: StoredUser = { username: body.username, passwordHash: await hashPassword(body.password), permissions: body.permissions, createdAt: now, updatedAt: now };
      await auth.users.put(user);
      await changed(req, 'created', user.username, { permissions: user.permissions, passwordChanged: true });
      reply.status(201);
      return view(user);
    },
  });
  ctx.http.route<ByName>({
    ...common,
    method: 'get',
    path: '/users/:username',
    summary: 'Get a user',
    params,
    responses: { 200: { description: 'The user', schema: USER_REF }, 404: { description: 'Unknown user' } },
    handler: async (req) => view(await load(req.params.username)),
  });
  ctx.http.route<ByName & { Body: UpdateUserBody }>({
    ...common,
    method: 'put',
    path: '/users/:username',
    summary: "Change a user's password or permissions",
    description: 'Changing the password or permissions revokes the user\'s tokens.',
    params,
    body: { type: 'object', additionalProperties: false, minProperties: 1, properties: { password: PASSWORD, permissions: PERMISSIONS } },
    responses: { 200: { description: 'Updated', schema: USER_REF }, 404: { description: 'Unknown user' }, 409: { description: 'Would leave no user manager' } },
    async handler(req) {
      const { body } = req;
      const user = await load(req.params.username);
      if (body.permissions) {
        checkPermissions(body.permissions);
        const stillManager = body.permissions.includes(ALL_PERMISSIONS) || body.permissions.includes(USERS_MANAGE);
        const others = (await managers()).filter((u) => u.username !== user.username);
        if (!stillManager && others.length === 0) throw new HttpError(409, 'GW_ERR_LAST_MANAGER', 'at least one user must keep users:manage');
        user.permissions = body.permissions;
      }
      if (body.password) user.passwordHash = await hashPassword(body.password);
      user.updatedAt = new Date().toISOString();
      await auth.users.put(user);
      if (body.password) await auth.tokens.revokeUser(user.username);
      await changed(req, 'updated', user.username, { ...(body.permissions ? { permissions: body.permissions } : {}), passwordChanged: body.password !== undefined });
      return view(user);
    },
  });
  ctx.http.route<ByName>({
    ...common,
    method: 'delete',
    path: '/users/:username',
    summary: 'Delete a user and revoke their tokens',
    params,
    responses: { 204: { description: 'Deleted' }, 404: { description: 'Unknown user' }, 409: { description: 'Would leave no user manager' } },
    async handler(req) {
      const user = await load(req.params.username);
      const others = (await managers()).filter((u) => u.username !== user.username);
      if (others.length === 0) throw new HttpError(409, 'GW_ERR_LAST_MANAGER', 'at least one user must keep users:manage');
      await auth.users.delete(user.username);
      await auth.tokens.revokeUser(user.username);
      await changed(req, 'deleted', user.username);
    },
  });
}
