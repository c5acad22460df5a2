import type { AuthenticatedUser, PluginAuth } from '../plugin-api.js';
import { expandPermissions } from './core-permissions.js';
import { DUMMY_HASH_PROMISE, verifyPassword } from './password-hash.js';
import { tokenId, type TokenService } from './token-service.js';
import type { StoredUser, UserStore } from './user-store.js';

/**
 * The kernel's authentication: users, tokens and the permission set of the enabled plugins. The
 * sign-in (`signIn`, throttled) is added in the register phase, where the event bus lives
 * (sign-in.ts); `checkPassword` is the bare check under it, for the kernel only.
 */
export interface AuthService extends Omit<PluginAuth, 'signIn' | 'verifyPassword' | 'attemptThrottle'> {
  readonly users: UserStore;
  readonly tokens: TokenService;
  toAuthenticated(user: StoredUser): AuthenticatedUser;
  /** Checks a password without any throttle: only the kernel's sign-in calls it. */
  checkPassword(username: string, password: string): Promise<AuthenticatedUser | null>;
}

export function createAuthService(users: UserStore, tokens: TokenService, knownPermissions: () => string[]): AuthService {
  // Made once per user and grant, not per request; frozen because every request shares it.
  const expanded = new WeakMap<StoredUser, { granted: string[]; known: string[]; user: AuthenticatedUser }>();
  const toAuthenticated = (user: StoredUser): AuthenticatedUser => {
    const known = knownPermissions();
    const cached = expanded.get(user);
    if (cached && cached.granted === user.permissions && cached.known === known) return cached.user;
    const authenticated = Object.freeze({ id: user.id, username: user.username, permissions: Object.freeze(expandPermissions(user.permissions, known)) as string[] });
    expanded.set(user, { granted: user.permissions, known, user: authenticated });
    return authenticated;
  };
  const userById = async (id: string) => {
    const user = await users.getById(id);
    return user ? toAuthenticated(user) : null;
  };
  return {
    users,
    tokens,
    toAuthenticated,
    allPermissions: knownPermissions,
    tokenId,
    userById,
    async verifyToken(token) {
      const id = await tokens.resolve(token);
      return id ? userById(id) : null;
    },
    async currentUser(username) {
      const user = await users.get(username);
      return user ? toAuthenticated(user) : null;
    },
    async checkPassword(username, password) {
      const user = username.length <= 64 ? await users.get(username) : undefined;
      // Spend the same scrypt time for unknown users so timing does not reveal which names exist.
      const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH_PROMISE));
      return ok && user ? toAuthenticated(user) : null;
    },
  };
}
