/** How the PostgreSQL driver lays out the SOAP notification subscriptions (ignored by LevelDB). */
import type { CollectionDeclaration } from '../../core/plugin-api.js';

export const SOAP_MPS_COLLECTIONS: Record<string, CollectionDeclaration> = {
  '': {
    table: 'soap_subscriptions',
    description: 'SOAP notification subscriptions, by subscription:<owner>:<Delivery URI> (owner user:<user id> or address:<ip>)',
    fields: { subscriber: { path: 'subscriber', type: 'text' }, delivery: { path: 'delivery', type: 'text' }, expires_at: { path: 'expiresAt', type: 'text' } },
    indexes: [['subscriber'], ['expires_at']],
  },
};
