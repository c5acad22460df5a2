/**
 * Activation profiles in the plugin's store, one key per name; the fixed and MEBx passwords sealed,
 * written only, leaving through `secretsOf` for an activation alone.
 */
import type { KeyValueStore, PluginSecrets } from '../../../core/plugin-api.js';
import { createSerialQueue } from '../../../core/util/serial-queue.js';
import { ActivationErrors } from '../errors.js';
import type { ActivationProfile, ProfileInput, ProfileUpdate } from '../schemas.js';

interface StoredProfile extends Omit<ActivationProfile, 'hasFixedPassword' | 'hasMebxPassword' | 'warnings'> {
  sealedFixedPassword: string | null;
  sealedMebxPassword: string | null;
}

export interface ProfileSecrets {
  fixedPassword: string | null;
  mebxPassword: string | null;
}

export interface ProfileStore {
  list(): ActivationProfile[];
  get(name: string): ActivationProfile | undefined;
  /** @throws 404 `GW_ERR_ACTIVATION_PROFILE_NOT_FOUND` */
  require(name: string): ActivationProfile;
  /** The profile's passwords, unsealed (an activation's own use). */
  secretsOf(name: string): ProfileSecrets;
  create(input: ProfileInput): Promise<ActivationProfile>;
  update(name: string, input: ProfileUpdate): Promise<ActivationProfile>;
  delete(name: string): Promise<void>;
}

/** Rules the schema cannot say: what firmware accepts in each mode, and which passwords go with which choice. */
function check(profile: Omit<StoredProfile, 'createdAt' | 'updatedAt' | 'name'>): void {
  if (profile.mode === 'ccm' && profile.userConsent !== 'all') {
    throw ActivationErrors.profileInvalid('body.userConsent', 'must be "all" in client control mode (the firmware requires consent for everything there)');
  }
  if (profile.password === 'fixed' && !profile.sealedFixedPassword) throw ActivationErrors.profileInvalid('body.fixedPassword', 'is required with password "fixed"');
  if (profile.password === 'generate' && profile.sealedFixedPassword) throw ActivationErrors.profileInvalid('body.fixedPassword', 'goes only with password "fixed"');
  if (profile.mode === 'acm' && !profile.sealedMebxPassword) throw ActivationErrors.profileInvalid('body.mebxPassword', 'is required in admin control mode');
  if (profile.mode === 'ccm' && profile.sealedMebxPassword) throw ActivationErrors.profileInvalid('body.mebxPassword', 'is set only in admin control mode');
}

function publicView(stored: StoredProfile): ActivationProfile {
  const { sealedFixedPassword, sealedMebxPassword, ...profile } = stored;
  const warnings: string[] = [];
  if (profile.password === 'fixed') warnings.push('every device activated with this profile gets the same AMT password: what one device\'s exchange reveals opens all of them');
  return { ...profile, hasFixedPassword: sealedFixedPassword !== null, hasMebxPassword: sealedMebxPassword !== null, warnings };
}

export async function openProfileStore(store: KeyValueStore, secrets: PluginSecrets): Promise<ProfileStore> {
  const byName = new Map<string, StoredProfile>();
  for await (const page of store.pages<StoredProfile>()) for (const [, profile] of page) byName.set(profile.name, profile);
  const serial = createSerialQueue();
  const load = (name: string) => {
    const profile = byName.get(name);
    if (!profile) throw ActivationErrors.profileNotFound(name);
    return profile;
  };
  const save = async (profile: StoredProfile) => {
    check(profile);
    await store.put(profile.name, profile);
    byName.set(profile.name, profile);
    return publicView(profile);
  };
  const fields = (input: ProfileUpdate, current: StoredProfile | undefined) => ({
    mode: input.mode,
    password: input.password ?? 'generate',
    userConsent: input.userConsent ?? 'all',
    features: { kvm: input.features?.kvm ?? true, sol: input.features?.sol ?? true, ider: input.features?.ider ?? true },
    connection: input.connection ?? 'lan',
    // A password left out of an update keeps the stored one while the choice still wants it.
    sealedFixedPassword: input.fixedPassword !== undefined ? secrets.seal(input.fixedPassword) : input.password === 'fixed' ? (current?.sealedFixedPassword ?? null) : null,
    sealedMebxPassword: input.mebxPassword !== undefined ? secrets.seal(input.mebxPassword) : input.mode === 'acm' ? (current?.sealedMebxPassword ?? null) : null,
  });
  return {
    list: () => [...byName.values()].sort((a, b) => a.name.localeCompare(b.name)).map(publicView),
    get: (name) => {
      const profile = byName.get(name);
      return profile ? publicView(profile) : undefined;
    },
    require: (name) => publicView(load(name)),
    secretsOf(name) {
      const profile = load(name);
      return {
        fixedPassword: profile.sealedFixedPassword ? secrets.unseal(profile.sealedFixedPassword) : null,
        mebxPassword: profile.sealedMebxPassword ? secrets.unseal(profile.sealedMebxPassword) : null,
      };
    },
    create: (input) =>
      serial(async () => {
        if (byName.has(input.name)) throw ActivationErrors.profileExists(input.name);
        const now = new Date().toISOString();
        return save({ name: input.name, ...fields(input, undefined), createdAt: now, updatedAt: now });
      }),
    update: (name, input) =>
      serial(async () => {
        const current = load(name);
        return save({ ...current, ...fields(input, current), updatedAt: new Date().toISOString() });
      }),
    delete: (name) =>
      serial(async () => {
        load(name);
        await store.del(name);
        byName.delete(name);
      }),
  };
}
