import type { KeyValueStore } from '../store/key-value-store.js';

/** A gateway user as stored; the hash never leaves the auth module. */
export interface StoredUser {
  username: string;
  passwordHash: string;
  permissions: string[];
  createdAt: string;
  updatedAt: string;
}

/** Users under the kernel's `users` namespace, keyed by lower-cased username. */
export interface UserStore {
  get(username: string): Promise<StoredUser | undefined>;
  list(): Promise<StoredUser[]>;
  put(user: StoredUser): Promise<void>;
  delete(username: string): Promise<void>;
  /** True when at least one user exists. */
  hasAny(): Promise<boolean>;
}

export function createUserStore(store: KeyValueStore): UserStore {
  const key = (username: string) => username.toLowerCase();
  return {
    get: (username) => store.get<StoredUser>(key(username)),
    async list() {
      const users: StoredUser[] = [];
      for await (const [, user] of store.entries<StoredUser>()) users.push(user);
      return users;
    },
    put: (user) => store.put(key(user.username), user),
    delete: (username) => store.del(key(username)),
    async hasAny() {
      for await (const _entry of store.entries({ limit: 1 })) return true;
      return false;
    },
  };
}
