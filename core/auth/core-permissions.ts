import type { PermissionDeclaration } from '../plugin-api.js';

/** The kernel's own permission; every other one is declared by the plugin that owns it. */
export const USERS_MANAGE = 'users:manage';

export const CORE_PERMISSIONS: PermissionDeclaration[] = [{ name: USERS_MANAGE, description: 'Manage gateway users and their permissions' }];

/** Grants every permission, including those of plugins enabled later. */
export const ALL_PERMISSIONS = '*';

export function expandPermissions(granted: string[], known: string[]): string[] {
  if (granted.includes(ALL_PERMISSIONS)) return [...known];
  return granted.filter((p) => known.includes(p));
}
