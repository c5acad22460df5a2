import type { AuthenticatedUser, PluginAuth } from '../plugin-api.js';
import { expandPermissions } from './core-permissions.js';
import { DUMMY_HASH_PROMISE, verifyPassword } from './password-hash.js';
import type { TokenService } from './token-service.js';
import type { StoredUser, UserStore } from './user-store.js';

/** The kernel's authentication: users, tokens and the permission set of the enabled plugins. */
export interface AuthService extends PluginAuth {
  readonly users: UserStore;
  readonly tokens: TokenService;
  toAuthenticated(user: StoredUser): AuthenticatedUser;
}

export function createAuthService(users: UserStore, tokens: TokenService, knownPermissions: () => string[]): AuthService {
  const toAuthenticated = (user: StoredUser): AuthenticatedUser => ({
    username: user.username,
    permissions: expandPermissions(user.permissions, knownPermissions()),
  });
  return {
    users,
    tokens,
    toAuthenticated,
    allPermissions: knownPermissions,
    async verifyToken(token) {
      const username = await tokens.resolve(token);
      if (!username) return null;
      const user = await users.get(username);
      return user ? toAuthenticated(user) : null;
    },
    async verifyPassword(username, password) {
      const user = username.length <= 64 ? await users.get(username) : undefined;
      // Spend the same scrypt time for unknown users so timing does not reveal which names exist.
      const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH_PROMISE));
      return ok && user ? toAuthenticated(user) : null;
    },
  };
}
