/** How the PostgreSQL driver lays out the devices plugin's records (ignored by LevelDB). */
import type { CollectionDeclaration } from '../../core/plugin-api.js';

export const DEVICES_COLLECTIONS: Record<string, CollectionDeclaration> = {
  devices: {
    table: 'devices',
    description: 'the device registry: one row per device, by id',
    fields: {
      ip_address: { path: 'ipAddress', type: 'inet' },
      hostname: { path: 'hostname', type: 'text' },
      uuid: { path: 'uuid', type: 'text' },
      online: { path: 'online', type: 'boolean' },
      provisioning_state: { path: 'provisioningState', type: 'text' },
      firmware_version: { path: 'firmwareVersion', type: 'text' },
      auth_status: { path: 'authStatus', type: 'text' },
      credential_id: { path: 'credentialId', type: 'text' },
      last_seen: { path: 'lastSeen', type: 'text' },
    },
    indexes: [['ip_address'], ['uuid'], ['hostname'], ['online', 'ip_address'], ['provisioning_state', 'ip_address']],
  },
  credentials: {
    table: 'device_credentials',
    description: 'device credentials: user name and the password sealed under the master key; bound_to the UUID of the one device a generated credential serves (activation)',
    fields: { name: { path: 'name', type: 'text' }, username: { path: 'username', type: 'text' }, is_default: { path: 'isDefault', type: 'boolean' }, bound_to: { path: 'boundTo', type: 'text' } },
    indexes: [['bound_to']],
  },
  'sign-in': {
    table: 'device_sign_in',
    description: "each device address's sign-in memory: failed logins in a row, refused credentials, lockout",
    fields: {
      consecutive_failures: { path: 'consecutiveFailures', type: 'integer' },
      locked_out_at: { path: 'lockedOutAt', type: 'text' },
      last_failure_at: { path: 'lastFailureAt', type: 'text' },
      working_credential: { path: 'workingCredential', type: 'text' },
    },
  },
};
