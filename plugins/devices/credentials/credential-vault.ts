import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { isHttpError, type KeyValueStore, type PluginSecrets, type BatchOperation } from '../../../core/plugin-api.js';
import { createSerialQueue } from '../../../core/util/serial-queue.js';
import type { Credential, CredentialVault } from '../api.js';
import { DeviceErrors } from '../errors.js';
import type { CREATE_CREDENTIAL_SCHEMA, UPDATE_CREDENTIAL_SCHEMA } from './credential-schemas.js';

/** A credential as stored: the password only ever sealed. */
interface StoredCredential extends Credential {
  sealedPassword: string;
  /** When the username or password last changed (absent: never since creation). */
  secretChangedAt?: string;
}

/** A new credential as the create route accepts it. */
export type CredentialInput = Static<typeof CREATE_CREDENTIAL_SCHEMA>;
export type CredentialPatch = Static<typeof UPDATE_CREDENTIAL_SCHEMA>;

/** A credential with its password unsealed, for one device task; never logged, returned or handed to another plugin. */
export interface UnsealedCredential {
  id: string;
  username: string;
  password: string;
}

/** The vault with its write operations (the credential routes) and its unsealing (the device gate's alone). */
export interface ManagedCredentialVault extends CredentialVault {
  /** Unseals one credential for a device task (main thread only). */
  unseal(id: string): Promise<UnsealedCredential>;
  get(id: string): Credential | undefined;
  /** Changes when the username or password changes (not the name or default flag); undefined when unknown. */
  signInVersion(id: string): string | undefined;
  create(input: CredentialInput): Promise<Credential>;
  update(id: string, patch: CredentialPatch): Promise<Credential>;
  delete(id: string): Promise<void>;
}

/** Equal-length digests, so that a comparison in constant time says nothing of either password's length. */
const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

const publicView = ({ sealedPassword: _sealed, secretChangedAt: _changed, ...credential }: StoredCredential): Credential => credential;
const byCreation = (a: StoredCredential, b: StoredCredential) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

/**
 * Credentials in the plugin's store, passwords sealed with the kernel's secretbox. The first
 * credential becomes the default; setting a default clears the others in the same atomic batch.
 */
export async function openCredentialVault(store: KeyValueStore, secrets: PluginSecrets): Promise<ManagedCredentialVault> {
  const cache = new Map<string, StoredCredential>();
  for await (const [id, credential] of store.entries<StoredCredential>()) cache.set(id, credential);
  store.onRemoteChange<StoredCredential>((id, credential) => (credential ? cache.set(id, credential) : cache.delete(id)));
  const serial = createSerialQueue();

  // A credential bound to one device is that device's alone: in no list, tried for no other device.
  const ordered = () => [...cache.values()].filter((c) => c.boundTo === undefined).sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || byCreation(a, b));
  const boundOf = (uuid: string) => {
    const wanted = uuid.toLowerCase();
    for (const credential of cache.values()) if (credential.boundTo === wanted) return credential;
    return undefined;
  };
  const load = (id: string) => {
    const credential = cache.get(id);
    if (!credential) throw DeviceErrors.credentialNotFound(id);
    return credential;
  };
  /** Writes `changed` and, when it is the default, clears every other default in one batch. */
  const commit = async (changed: StoredCredential) => {
    const updates = [changed];
    if (changed.isDefault) {
      for (const other of cache.values()) {
        if (other.id !== changed.id && other.isDefault) updates.push({ ...other, isDefault: false, updatedAt: changed.updatedAt });
      }
    }
    await store.batch(updates.map((c): BatchOperation => ({ type: 'put', key: c.id, value: c })));
    for (const c of updates) cache.set(c.id, c);
  };
  const unsealOne = (credential: StoredCredential): UnsealedCredential => ({
    id: credential.id,
    username: credential.username,
    password: secrets.unseal(credential.sealedPassword),
  });

  /** Seals `input` as the device's own credential; says what it replaced (for `rebind`'s undo). */
  const bindOne = (uuid: string, input: { username: string; password: string }) =>
    serial(async () => {
      const now = new Date().toISOString();
      const previous = boundOf(uuid);
      const stored: StoredCredential = {
        id: previous?.id ?? randomUUID(),
        name: `device ${uuid.toLowerCase()}`,
        username: input.username,
        isDefault: false,
        boundTo: uuid.toLowerCase(),
        createdAt: previous?.createdAt ?? now,
        updatedAt: now,
        sealedPassword: secrets.seal(input.password),
        ...(previous ? { secretChangedAt: now } : {}),
      };
      await store.put(stored.id, stored);
      cache.set(stored.id, stored);
      return { credential: publicView(stored), stored, previous };
    });

  return {
    list: () => ordered().map(publicView),
    get: (id) => {
      const credential = cache.get(id);
      return credential ? publicView(credential) : undefined;
    },
    signInVersion: (id) => {
      const credential = cache.get(id);
      return credential ? (credential.secretChangedAt ?? credential.createdAt) : undefined;
    },
    async unseal(id) {
      return unsealOne(load(id));
    },
    boundTo(uuid) {
      const credential = boundOf(uuid);
      return credential ? publicView(credential) : undefined;
    },
    bind: async (uuid, input) => (await bindOne(uuid, input)).credential,
    async rebind(uuid, input) {
      const { credential, stored, previous } = await bindOne(uuid, input);
      return {
        credential,
        undo: () =>
          serial(async () => {
            // Only what this rebind stored is undone: a later binding stands.
            if (cache.get(stored.id) !== stored) return;
            if (previous) await store.put(previous.id, previous);
            else await store.del(stored.id);
            if (previous) cache.set(previous.id, previous);
            else cache.delete(stored.id);
          }),
      };
    },
    unbind: (uuid) =>
      serial(async () => {
        const credential = boundOf(uuid);
        if (!credential) return false;
        await store.del(credential.id);
        cache.delete(credential.id);
        return true;
      }),
    async checkSealed(id) {
      const credential = load(id);
      try {
        unsealOne(credential);
        return { unsealed: true };
      } catch (err) {
        return { unsealed: false, reason: isHttpError(err) && err.expose ? err.message : 'the stored password cannot be unsealed' };
      }
    },
    async passwordMatches(id, password) {
      const credential = cache.get(id);
      if (!credential) return false;
      return timingSafeEqual(digest(password), digest(unsealOne(credential).password));
    },
    create: (input) =>
      serial(async () => {
        const now = new Date().toISOString();
        const credential: StoredCredential = {
          id: randomUUID(),
          name: input.name ?? input.username,
          username: input.username,
          isDefault: input.isDefault ?? cache.size === 0,
          createdAt: now,
          updatedAt: now,
          sealedPassword: secrets.seal(input.password),
        };
        await commit(credential);
        return publicView(credential);
      }),
    update: (id, patch) =>
      serial(async () => {
        const current = load(id);
        const { password, ...rest } = patch;
        const now = new Date().toISOString();
        const secretChanged = password !== undefined || (rest.username !== undefined && rest.username !== current.username);
        const next: StoredCredential = {
          ...current,
          ...rest,
          ...(password === undefined ? {} : { sealedPassword: secrets.seal(password) }),
          ...(secretChanged ? { secretChangedAt: now } : {}),
          updatedAt: now,
        };
        await commit(next);
        return publicView(next);
      }),
    delete: (id) =>
      serial(async () => {
        load(id);
        await store.del(id);
        cache.delete(id);
      }),
  };
}
