/** The kernel's own collections: users and bearer tokens (namespace `core`). */
import type { PlacedCollection } from './collections.js';
import { pluginCollectionPath } from './collections.js';
import type { PluginDefinition } from '../plugins/plugin-definition.js';
import { CORE_PLUGIN } from '../core-plugin.js';

const KERNEL_COLLECTIONS: PlacedCollection[] = [
  {
    path: [CORE_PLUGIN, 'users'],
    table: 'gw_users',
    description: 'gateway users by lower-cased name: their immutable id, permissions and the password hash sealed under the master key',
    fields: { user_id: { path: 'id', type: 'text' }, username: { path: 'username', type: 'text' }, updated_at: { path: 'updatedAt', type: 'text' } },
    indexes: [['user_id']],
  },
  {
    path: [CORE_PLUGIN, 'tokens'],
    table: 'gw_tokens',
    description: 'bearer tokens by the SHA-256 of the token (never the token), each bound to its user id',
    fields: { user_id: { path: 'userId', type: 'text' }, username: { path: 'username', type: 'text' }, expires_at: { path: 'expiresAt', type: 'text' } },
    indexes: [['user_id'], ['username'], ['expires_at']],
  },
];

/** The kernel's collections and those of each enabled plugin, each with who declared it. */
export function siteCollections(plugins: ReadonlyArray<{ name: string; def: Pick<PluginDefinition<never>, 'collections' | 'storeNamespace'> }>): Array<PlacedCollection & { owner: string }> {
  const placed: Array<PlacedCollection & { owner: string }> = KERNEL_COLLECTIONS.map((c) => ({ ...c, owner: CORE_PLUGIN }));
  for (const plugin of plugins) {
    for (const [sub, declaration] of Object.entries(plugin.def.collections ?? {})) {
      placed.push({ ...declaration, path: pluginCollectionPath(plugin.def.storeNamespace ?? plugin.name, sub), owner: plugin.name });
    }
  }
  return placed;
}
