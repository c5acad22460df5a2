import type { PermissionDeclaration } from '../plugin-api.js';

/** The permissions of the contract (section 2); plugins may add more. */
export const CORE_PERMISSIONS: PermissionDeclaration[] = [
  { name: 'scan:run', description: 'Start and cancel network scans' },
  { name: 'devices:read', description: 'Read the device list and scan results' },
  { name: 'devices:delete', description: 'Delete devices from the list' },
  { name: 'credentials:read', description: 'List stored device credentials (never their passwords)' },
  { name: 'credentials:write', description: 'Create, change and delete device credentials' },
  { name: 'diagnostics:run', description: 'Run credential and WS-Management diagnostics' },
  { name: 'power:read', description: 'Read device power states' },
  { name: 'power:control', description: 'Change device power states' },
  { name: 'monitor:read', description: 'Read online state, hardware and event logs' },
  { name: 'remote:connect', description: 'Open remote sessions to devices' },
  { name: 'mps:read', description: 'Use the SOAP MPSInterfaceService' },
  { name: 'users:manage', description: 'Manage gateway users and their permissions' },
];

/** Grants every permission, including those of plugins enabled later. */
export const ALL_PERMISSIONS = '*';

export function expandPermissions(granted: string[], known: string[]): string[] {
  if (granted.includes(ALL_PERMISSIONS)) return [...known];
  return granted.filter((p) => known.includes(p));
}
