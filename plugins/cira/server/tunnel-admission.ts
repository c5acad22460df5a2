/**
 * Whether an MPS account may bring a device UUID: the account still exists, the UUID is in its list
 * when it has one, and the UUID is bound to it (a UUID not seen before is bound to it now). Anything
 * else is a device claiming another's identity, or a misprovisioned one: refused, never a takeover.
 */
import type { AccountStore } from '../accounts/account-store.js';
import type { BindingStore, TunnelTrust } from '../identity/uuid-bindings.js';

export type Admission = { trust: TunnelTrust | null } | { refused: string };

export async function admitTunnel(accounts: AccountStore, bindings: BindingStore, uuid: string, username: string): Promise<Admission> {
  const account = accounts.find(username);
  if (!account) return { refused: 'the MPS account was deleted' };
  if (account.uuids && !account.uuids.includes(uuid)) return { refused: 'the UUID is not among those the MPS account serves' };
  const binding = await bindings.claim(uuid, account);
  if (binding.accountId !== account.id) return { refused: `the UUID is bound to another MPS account ('${binding.username}'); an operator can rebind it` };
  return { trust: binding.trust };
}
