/** How the PostgreSQL driver lays out the online states (ignored by LevelDB). */
import type { CollectionDeclaration } from '../../core/plugin-api.js';

export const REMOTE_MONITOR_COLLECTIONS: Record<string, CollectionDeclaration> = {
  presence: {
    table: 'device_presence',
    description: "each device's online state, since when, and when it last answered, by device id",
    fields: { online: { path: 'online', type: 'boolean' }, since: { path: 'since', type: 'text' }, last_seen: { path: 'lastSeen', type: 'text' } },
  },
};
