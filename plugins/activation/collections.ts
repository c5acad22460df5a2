/** How the PostgreSQL driver lays out the activation plugin's records (ignored by LevelDB). */
import type { CollectionDeclaration } from '../../core/plugin-api.js';

export const ACTIVATION_COLLECTIONS: Record<string, CollectionDeclaration> = {
  profiles: {
    table: 'activation_profiles',
    description: 'activation profiles by name; the fixed and MEBx passwords sealed under the master key',
    fields: { mode: { path: 'mode', type: 'text' }, connection: { path: 'connection', type: 'text' }, updated_at: { path: 'updatedAt', type: 'text' } },
  },
  domains: {
    table: 'activation_domains',
    description: 'provisioning domains by id: the DNS suffix and its certificate (the PFX sealed under the master key)',
    fields: { suffix: { path: 'suffix', type: 'text' }, expires_at: { path: 'expiresAt', type: 'text' } },
    indexes: [['suffix']],
  },
  records: {
    table: 'activation_records',
    description: 'what each activation, deactivation and maintenance did, keyed r:<number> in start order',
    fields: {
      uuid: { path: 'uuid', type: 'text' },
      action: { path: 'action', type: 'text' },
      outcome: { path: 'outcome', type: 'text' },
      profile: { path: 'profile', type: 'text' },
      device_id: { path: 'deviceId', type: 'text' },
      started_at: { path: 'startedAt', type: 'text' },
    },
    indexes: [['uuid'], ['outcome']],
  },
  approvals: {
    table: 'activation_approvals',
    description: "operators' approvals to activate a device that replaces a managed one, by device UUID",
    fields: { device_id: { path: 'deviceId', type: 'text' }, approved_by: { path: 'approvedBy', type: 'text' }, expires_at: { path: 'expiresAt', type: 'text' } },
  },
  'approval-requests': {
    table: 'activation_approval_requests',
    description: 'activations waiting for an approval now, by device UUID, with the gateway instance each runs on',
    fields: { device_id: { path: 'deviceId', type: 'text' }, record_id: { path: 'recordId', type: 'text' }, instance: { path: 'instance', type: 'text' } },
  },
};
