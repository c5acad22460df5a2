/**
 * MPS accounts devices sign in with, in the plugin's store. The password is sealed with the
 * kernel's secretbox like device credentials and leaves only through `verify`, as a yes or no.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { KeyValueStore, PluginSecrets } from '../../../core/plugin-api.js';
import { createSerialQueue } from '../../../core/util/serial-queue.js';
import { CiraErrors } from '../errors.js';

export type { MpsAccount } from '../routes/cira-schemas.js';
import type { MpsAccount } from '../routes/cira-schemas.js';

interface StoredAccount extends MpsAccount {
  sealedPassword: string;
}

export interface AccountStore {
  list(): MpsAccount[];
  create(input: { username: string; password: string; uuids?: string[] | null }): Promise<MpsAccount>;
  /** Limits the account to `uuids` (null: any UUID). */
  update(id: string, patch: { uuids: string[] | null }): Promise<MpsAccount>;
  delete(id: string): Promise<void>;
  get(id: string): MpsAccount | undefined;
  /** The account a device signed in with. */
  find(username: string): MpsAccount | undefined;
  /** True when `username` exists and `password` is its password; time does not tell which failed. */
  verify(username: string, password: string): boolean;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
const publicView = ({ sealedPassword: _sealed, ...account }: StoredAccount): MpsAccount => account;
/** A UUID list as stored: lower case, each once, in order; null or absent: no limit. */
const uuidLimit = (uuids: string[] | null | undefined): { uuids?: string[] } => (uuids ? { uuids: [...new Set(uuids.map((u) => u.toLowerCase()))] } : {});

export async function openAccountStore(store: KeyValueStore, secrets: PluginSecrets): Promise<AccountStore> {
  const byId = new Map<string, StoredAccount>();
  const byUsername = new Map<string, StoredAccount>();
  for await (const [, account] of store.entries<StoredAccount>()) {
    byId.set(account.id, account);
    byUsername.set(account.username, account);
  }
  const serial = createSerialQueue();
  // Opened when the user name is unknown, so that both failures cost the same.
  const unknownUser = secrets.seal(randomUUID());
  return {
    list: () => [...byId.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)).map(publicView),
    create: (input) =>
      serial(async () => {
        if (byUsername.has(input.username)) throw CiraErrors.accountExists(input.username);
        const account: StoredAccount = { id: randomUUID(), username: input.username, createdAt: new Date().toISOString(), ...uuidLimit(input.uuids), sealedPassword: secrets.seal(input.password) };
        await store.put(account.id, account);
        byId.set(account.id, account);
        byUsername.set(account.username, account);
        return publicView(account);
      }),
    update: (id, patch) =>
      serial(async () => {
        const current = byId.get(id);
        if (!current) throw CiraErrors.accountNotFound(id);
        const { uuids: _old, ...rest } = current;
        const account: StoredAccount = { ...rest, ...uuidLimit(patch.uuids) };
        await store.put(id, account);
        byId.set(id, account);
        byUsername.set(account.username, account);
        return publicView(account);
      }),
    get(id) {
      const account = byId.get(id);
      return account ? publicView(account) : undefined;
    },
    find(username) {
      const account = byUsername.get(username);
      return account ? publicView(account) : undefined;
    },
    delete: (id) =>
      serial(async () => {
        const account = byId.get(id);
        if (!account) throw CiraErrors.accountNotFound(id);
        await store.del(id);
        byId.delete(id);
        byUsername.delete(account.username);
      }),
    verify(username, password) {
      const account = byUsername.get(username);
      let expected: Buffer;
      try {
        expected = digest(secrets.unseal(account?.sealedPassword ?? unknownUser));
      } catch {
        return false;
      }
      return timingSafeEqual(expected, digest(password)) && account !== undefined;
    },
  };
}
