/**
 * Who may do what to whom in user management. Holding `users:manage` lets a user manage users, not
 * become admin: it grants only permissions it holds itself, and changes or deletes only users whose
 * every permission it holds (so a manager cannot take over the admin by setting its password).
 * Mutations run one at a time, so "is another manager left?" is checked and written atomically.
 */
import { HttpError } from '../http/http-error.js';
import { createSemaphore } from '../util/semaphore.js';
import { ALL_PERMISSIONS, USERS_MANAGE } from './core-permissions.js';
import type { StoredUser, UserStore } from './user-store.js';

const holds = (user: StoredUser, permission: string) => user.permissions.includes(ALL_PERMISSIONS) || user.permissions.includes(permission);

export const isManager = (permissions: readonly string[]) => permissions.includes(ALL_PERMISSIONS) || permissions.includes(USERS_MANAGE);

/** 403 unless the caller holds every permission it is about to grant (`*` only from a holder of `*`). */
export function assertMayGrant(caller: StoredUser, permissions: readonly string[]): void {
  const beyond = permissions.filter((p) => !holds(caller, p));
  if (beyond.length) {
    throw new HttpError(403, 'GW_ERR_PERMISSION_NOT_HELD', `you can grant only permissions you hold yourself; you do not hold ${beyond.map((p) => `'${p}'`).join(', ')}`);
  }
}

/** 403 unless the caller holds every permission the target holds (a user always may manage itself). */
export function assertMayManage(caller: StoredUser, target: StoredUser): void {
  if (target.permissions.every((p) => holds(caller, p))) return;
  throw new HttpError(403, 'GW_ERR_USER_OUTRANKS_YOU', `user '${target.username}' holds permissions you do not hold; only a user holding all of them may change or delete it`);
}

/** 409 when `remaining` (the users after the change) has no manager left. */
export function assertManagerRemains(remaining: readonly StoredUser[]): void {
  if (!remaining.some((u) => isManager(u.permissions))) throw new HttpError(409, 'GW_ERR_LAST_MANAGER', 'at least one user must keep users:manage');
}

/**
 * Runs user mutations one after another, each with the caller as stored now (it may have changed
 * while waiting), found by its id: a caller deleted meanwhile is gone even if its name was reused.
 */
export function userMutations(users: UserStore) {
  const serial = createSemaphore(1);
  return <T>(callerId: string, mutate: (caller: StoredUser) => Promise<T>): Promise<T> =>
    serial.run(async () => {
      const caller = await users.getById(callerId);
      if (!caller || !isManager(caller.permissions)) throw new HttpError(403, 'GW_ERR_FORBIDDEN', `this requires the permission '${USERS_MANAGE}'`);
      return mutate(caller);
    });
}
