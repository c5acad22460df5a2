import type { PermissionDeclaration } from '../plugin-api.js';
import { PluginError } from './plugin-errors.js';

/** The owner of a set of permissions: the kernel (`core`) or a plugin. */
export interface PermissionOwner {
  name: string;
  permissions: readonly PermissionDeclaration[];
}

const describe = (owner: string) => (owner === 'core' ? 'the kernel' : `plugin '${owner}'`);

/**
 * The names of every permission the kernel and the enabled plugins declare, in declaration order.
 * Each permission has one owner: one declared twice stops start-up naming both owners.
 */
export function collectPermissions(owners: readonly PermissionOwner[]): string[] {
  const ownerOf = new Map<string, string>();
  for (const { name, permissions } of owners) {
    for (const permission of permissions) {
      const other = ownerOf.get(permission.name);
      if (other === name) throw new PluginError('GW_ERR_PERMISSION_CLASH', `${describe(name)} declares the permission '${permission.name}' twice`);
      if (other !== undefined) {
        throw new PluginError('GW_ERR_PERMISSION_CLASH', `the permission '${permission.name}' is declared by both ${describe(other)} and ${describe(name)}`);
      }
      ownerOf.set(permission.name, name);
    }
  }
  return [...ownerOf.keys()];
}
