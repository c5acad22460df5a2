/** How the PostgreSQL driver lays out the scan history (ignored by LevelDB). */
import type { CollectionDeclaration } from '../../core/plugin-api.js';

export const REST_API_COLLECTIONS: Record<string, CollectionDeclaration> = {
  scans: {
    table: 'scans',
    description: 'network scans: range, status and counts',
    fields: { status: { path: 'status', type: 'text' }, started_at: { path: 'startedAt', type: 'text' }, range: { path: 'range', type: 'text' }, instance: { path: 'instance', type: 'text' } },
    indexes: [['status'], ['started_at']],
  },
};
