/** How the PostgreSQL driver lays out the cira plugin's records (ignored by LevelDB). */
import type { CollectionDeclaration } from '../../core/plugin-api.js';

export const CIRA_COLLECTIONS: Record<string, CollectionDeclaration> = {
  accounts: {
    table: 'cira_accounts',
    description: 'MPS accounts CIRA devices sign in with; passwords sealed under the master key',
    fields: { username: { path: 'username', type: 'text' } },
    indexes: [['username']],
  },
  tunnels: {
    table: 'cira_tunnels',
    description: 'which gateway instance holds each device tunnel (a cluster), by device id',
    fields: { instance: { path: 'instance', type: 'text' }, uuid: { path: 'connection.uuid', type: 'text' }, connected_at: { path: 'connection.connectedAt', type: 'text' } },
    indexes: [['instance']],
  },
  bindings: {
    table: 'cira_bindings',
    description: 'which MPS account each device UUID is bound to, and whether its tunnels are trusted',
    fields: { account_id: { path: 'accountId', type: 'text' }, username: { path: 'username', type: 'text' }, trust: { path: 'trust', type: 'text' } },
    indexes: [['account_id']],
  },
};
