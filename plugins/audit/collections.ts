/** How the PostgreSQL driver lays out the audit trail (ignored by LevelDB). */
import type { CollectionDeclaration } from '../../core/plugin-api.js';

export const AUDIT_COLLECTIONS: Record<string, CollectionDeclaration> = {
  records: {
    table: 'audit_records',
    description: 'the audit trail of operator actions, keyed in write order',
    fields: {
      at: { path: 'at', type: 'text' },
      username: { path: 'user', type: 'text' },
      action: { path: 'action', type: 'text' },
      target: { path: 'target', type: 'text' },
      outcome: { path: 'outcome', type: 'text' },
    },
    indexes: [['at'], ['username'], ['action'], ['target']],
  },
};
