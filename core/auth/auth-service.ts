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
  // Made once per user and grant, not per request; frozen because every request shares it.
  const expanded = new WeakMap<StoredUser, { granted: string[]; known: string[]; user: AuthenticatedUser }>();
  const toAuthenticated = (user: StoredUser): AuthenticatedUser => {
    const known = knownPermissions();
    const cached = expanded.get(user);
    if (cached && cached.granted === user.permissions && cached.known === known) return cached.user;
    const authenticated = Object.freeze({ username: user.username, permissions: Object.freeze(expandPermissions(user.permissions, known)) as string[] });
    expanded.set(user, { granted: user.permissions, known, user: authenticated });
    return authenticated;
  };
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
    async currentUser(username) {
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
