import { randomUUID } from 'node:crypto';
import type { KeyValueStore } from '../store/key-value-store.js';
import type { PluginSecrets } from '../plugin-api.js';
import { sealedKeyId } from '../secrets/sealed-values.js';

/** A gateway user as stored; the hash never leaves the auth module. */
export interface StoredUser {
  /**
   * Immutable and never reused: what sessions, tickets and tokens are bound to, so that a user
   * deleted and created again under the same name is another user.
   */
  id: string;
  username: string;
  /** The scrypt hash; sealed under the master key at rest (a copy of the store or a backup gives no hash to guess against). */
  passwordHash: string;
  permissions: string[];
  createdAt: string;
  updatedAt: string;
}

/**
 * Users under the kernel's `users` namespace, keyed by lower-cased username, mirrored in memory
 * (a site has tens of users; every authenticated request reads one).
 */
export interface UserStore {
  get(username: string): Promise<StoredUser | undefined>;
  /** The user with this id, or undefined once it was deleted (whatever user holds its name now). */
  getById(id: string): Promise<StoredUser | undefined>;
  list(): Promise<StoredUser[]>;
  put(user: StoredUser): Promise<void>;
  delete(username: string): Promise<void>;
  /** True when at least one user exists. */
  hasAny(): Promise<boolean>;
}

/** How a user name is matched (sign-in, lookups, the login throttle): case-insensitively. */
export const userKey = (username: string): string => username.toLowerCase();

/** A new user's immutable id. */
export const newUserId = (): string => randomUUID();

/**
 * Opens the users, sealing each password hash at rest. Records written before users had ids or
 * sealed hashes are given an id and sealed here, once, and written back. A hash that does not open
 * under the master key stops start-up (a wrong key is caught earlier, by the key check).
 */
export async function createUserStore(store: KeyValueStore, secrets: PluginSecrets): Promise<UserStore> {
  const key = userKey;
  const users = new Map<string, StoredUser>();
  const byId = new Map<string, StoredUser>();
  const sealedForm = (user: StoredUser) => ({ ...user, passwordHash: secrets.seal(user.passwordHash) });
  const remember = (user: StoredUser) => {
    users.set(key(user.username), user);
    byId.set(user.id, user);
  };
  const migrated: StoredUser[] = [];
  for await (const [, stored] of store.entries<Partial<StoredUser> & Omit<StoredUser, 'id'>>()) {
    const sealed = sealedKeyId(stored.passwordHash) !== undefined;
    const user: StoredUser = { ...stored, id: stored.id ?? newUserId(), passwordHash: sealed ? secrets.unseal(stored.passwordHash) : stored.passwordHash };
    if (!sealed || stored.id === undefined) migrated.push(user);
    remember(user);
  }
  if (migrated.length > 0) await store.batch(migrated.map((user) => ({ type: 'put' as const, key: key(user.username), value: sealedForm(user) })));
  return {
    get: async (username) => users.get(key(username)),
    getById: async (id) => byId.get(id),
    list: async () => [...users.values()].sort((a, b) => key(a.username).localeCompare(key(b.username))),
    async put(user) {
      await store.put(key(user.username), sealedForm(user));
      const previous = users.get(key(user.username));
      if (previous && previous.id !== user.id) byId.delete(previous.id);
      remember(user);
    },
    async delete(username) {
      await store.del(key(username));
      const user = users.get(key(username));
      users.delete(key(username));
      if (user) byId.delete(user.id);
    },
    hasAny: async () => users.size > 0,
  };
}
