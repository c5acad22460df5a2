/**
 * MPS accounts made for one device each, when the gateway provisions a device to dial in (activation):
 * a generated user name and password, the account limited to the device's UUID, the UUID bound to it
 * and trusted as `provisioned` (only that device was given the password). A device provisioned again
 * gets a new account; the one it had is deleted.
 */
import { randomBytes } from 'node:crypto';
import { randomPassword } from '../../../core/util/random-password.js';
import type { BindingStore } from '../identity/uuid-bindings.js';
import type { AccountStore } from './account-store.js';

/** AMT takes MPS user names and passwords of up to 16 characters in `AddMpServer` as RPS provisions them. */
const MPS_SECRET_LENGTH = 16;

export interface DeviceAccounts {
  /** A new account for the device with `uuid`: what to write into it. The password is returned once, here. */
  provision(uuid: string): Promise<{ username: string; password: string }>;
  /** Deletes the account provisioned for the device, if it has one of its own. */
  release(uuid: string): Promise<boolean>;
}

export function createDeviceAccounts(accounts: AccountStore, bindings: BindingStore): DeviceAccounts {
  /** The account bound to the UUID when it serves that UUID alone (one made for it). */
  const ownAccountOf = (uuid: string) => {
    const binding = bindings.get(uuid);
    const account = binding ? accounts.get(binding.accountId) : undefined;
    return account?.uuids?.length === 1 && account.uuids[0] === uuid ? account : undefined;
  };
  return {
    async provision(rawUuid) {
      const uuid = rawUuid.toLowerCase();
      const previous = ownAccountOf(uuid);
      const username = `amt${randomBytes(7).toString('hex').slice(0, MPS_SECRET_LENGTH - 3)}`;
      const password = randomPassword(MPS_SECRET_LENGTH);
      const account = await accounts.create({ username, password, uuids: [uuid] });
      await bindings.rebind(uuid, account);
      await bindings.trust(uuid, account.id, 'provisioned');
      if (previous) await accounts.delete(previous.id);
      return { username, password };
    },
    async release(rawUuid) {
      const account = ownAccountOf(rawUuid.toLowerCase());
      if (!account) return false;
      await accounts.delete(account.id);
      return true;
    },
  };
}
