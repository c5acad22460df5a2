/** How the PostgreSQL driver lays out the audit trail (ignored by LevelDB). */
import type { CollectionDeclaration } from '../../core/plugin-api.js';

export const AUDIT_COLLECTIONS: Record<string, CollectionDeclaration> = {
  records: {
    table: 'audit_records',
    description: 'the audit trail, keyed by class (r: operator records, f: sign-in failures) and number in write order',
    fields: {
      record_class: { path: 'class', type: 'text' },
      at: { path: 'at', type: 'text' },
      username: { path: 'user', type: 'text' },
      action: { path: 'action', type: 'text' },
      target: { path: 'target', type: 'text' },
      outcome: { path: 'outcome', type: 'text' },
    },
    indexes: [['at'], ['username'], ['action'], ['target']],
  },
};
