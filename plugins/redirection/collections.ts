/** How the PostgreSQL driver lays out the redirection plugin's records (ignored by LevelDB). */
import type { CollectionDeclaration } from '../../core/plugin-api.js';

export const REDIRECTION_COLLECTIONS: Record<string, CollectionDeclaration> = {
  sessions: {
    table: 'redirection_sessions',
    description: 'open remote console sessions (KVM, SOL, IDE-R) by session id, with the gateway instance serving each (a cluster)',
    fields: { instance: { path: 'instance', type: 'text' }, device_id: { path: 'session.deviceId', type: 'text' }, mode: { path: 'session.mode', type: 'text' } },
    indexes: [['device_id']],
  },
};
