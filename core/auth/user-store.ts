import type { KeyValueStore } from '../store/key-value-store.js';

/** A gateway user as stored; the hash never leaves the auth module. */
export interface StoredUser {
  username: string;
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
  list(): Promise<StoredUser[]>;
  put(user: StoredUser): Promise<void>;
  delete(username: string): Promise<void>;
  /** True when at least one user exists. */
  hasAny(): Promise<boolean>;
}

/** How a user name is matched (sign-in, lookups, the login throttle): case-insensitively. */
export const userKey = (username: string): string => username.toLowerCase();

export async function createUserStore(store: KeyValueStore): Promise<UserStore> {
  const key = userKey;
  const users = new Map<string, StoredUser>();
  for await (const [name, user] of store.entries<StoredUser>()) users.set(name, user);
  // Another instance of a cluster added, changed or deleted a user.
  store.onRemoteChange<StoredUser>((name, user) => (user ? users.set(name, user) : users.delete(name)));
  return {
    async get(username) {
      const known = users.get(key(username));
      if (known) return known;
      // A user another instance of a cluster added a moment ago may not have reached this mirror yet.
      const stored = await store.get<StoredUser>(key(username));
      if (stored) users.set(key(username), stored);
      return stored;
    },
    list: async () => [...users.values()].sort((a, b) => key(a.username).localeCompare(key(b.username))),
    async put(user) {
      await store.put(key(user.username), user);
      users.set(key(user.username), user);
    },
    async delete(username) {
      await store.del(key(username));
      users.delete(key(username));
    },
    hasAny: async () => users.size > 0,
  };
}
