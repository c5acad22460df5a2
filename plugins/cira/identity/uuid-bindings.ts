/**
 * Which MPS account each device UUID belongs to. A UUID is bound to the account it first came in
 * with; a tunnel claiming it under another account is refused until an operator rebinds it. The
 * binding also remembers whether the account's tunnels are trusted to be that device (`trust`), so
 * that a reconnect under the bound account is the same device without proving it again.
 */
import type { KeyValueStore } from '../../../core/plugin-api.js';
import { createSerialQueue } from '../../../core/util/serial-queue.js';

export type { TunnelTrust, UuidBinding } from '../routes/cira-schemas.js';
import type { TunnelTrust, UuidBinding } from '../routes/cira-schemas.js';

export interface BindingStore {
  get(uuid: string): Readonly<UuidBinding> | undefined;
  list(): ReadonlyArray<Readonly<UuidBinding>>;
  /** The UUID's binding, created for `account` when the UUID has none (first come). */
  claim(uuid: string, account: { id: string; username: string }): Promise<Readonly<UuidBinding>>;
  /** Records how the bound account's tunnels were trusted; no-op when the UUID is bound to another account. */
  trust(uuid: string, accountId: string, trust: TunnelTrust): Promise<Readonly<UuidBinding> | undefined>;
  /** Binds the UUID to `account` (an operator's decision), its trust to be established again. */
  rebind(uuid: string, account: { id: string; username: string }): Promise<Readonly<UuidBinding>>;
}

export async function openBindingStore(store: KeyValueStore): Promise<BindingStore> {
  const byUuid = new Map<string, UuidBinding>();
  for await (const [, binding] of store.entries<UuidBinding>()) byUuid.set(binding.uuid, binding);
  const serial = createSerialQueue();
  const save = async (binding: UuidBinding): Promise<UuidBinding> => {
    await store.put(binding.uuid, binding);
    byUuid.set(binding.uuid, binding);
    return binding;
  };
  const fresh = (uuid: string, account: { id: string; username: string }): UuidBinding => ({
    uuid,
    accountId: account.id,
    username: account.username,
    boundAt: new Date().toISOString(),
    trust: null,
    trustedAt: null,
  });
  return {
    get: (uuid) => byUuid.get(uuid),
    list: () => [...byUuid.values()].sort((a, b) => a.uuid.localeCompare(b.uuid)),
    claim: (uuid, account) => serial(async () => byUuid.get(uuid) ?? save(fresh(uuid, account))),
    trust: (uuid, accountId, trust) =>
      serial(async () => {
        const binding = byUuid.get(uuid);
        if (!binding || binding.accountId !== accountId) return undefined;
        if (binding.trust === trust) return binding;
        return save({ ...binding, trust, trustedAt: new Date().toISOString() });
      }),
    rebind: (uuid, account) => serial(() => save(fresh(uuid, account))),
  };
}
