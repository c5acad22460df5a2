/**
 * rest-api: the scanner management service of the earlier release (fixed paths under /api):
 * credentials, devices, scans and diagnostics. Provides the `devices` and `credentials` services.
 */
import { definePlugin } from '../../core/plugin-api.js';
import './api.js';
import { openCredentialVault } from './credentials/credential-vault.js';
import { registerCredentialRoutes } from './credentials/credential-routes.js';
import { openDeviceRegistry } from './devices/device-registry.js';
import { registerDeviceRoutes } from './devices/device-routes.js';
import { createDeviceAccess } from './devices/device-access.js';
import { DEVICE_PROBLEM_RESPONSES } from './devices/device-problems.js';
import { REST_API_CONFIG_SCHEMA, type RestApiConfig } from './config.js';
import { registerScanning } from './scans/register-scanning.js';
import { registerDiagnosticRoutes } from './diagnostics/diagnostic-routes.js';

export default definePlugin<RestApiConfig>({
  name: 'rest-api',
  version: '1.0.0',
  kernel: '1',
  prefix: '/api',
  configSchema: REST_API_CONFIG_SCHEMA,
  permissions: [
    { name: 'scan:run', description: 'Start and cancel network scans' },
    { name: 'devices:read', description: 'Read the device list and scan results' },
    { name: 'devices:delete', description: 'Delete devices from the list' },
    { name: 'devices:trust', description: "Reset a device's pinned TLS certificate" },
    { name: 'credentials:read', description: 'List stored device credentials (never their passwords)' },
    { name: 'credentials:write', description: 'Create, change and delete device credentials' },
    { name: 'diagnostics:run', description: 'Run credential and WS-Management diagnostics' },
  ],
  routes: [
    { path: '/devices', name: 'devices', meta: { title: 'Devices', icon: 'computer', permission: 'devices:read', order: 10 } },
    { path: '/scan', name: 'scan', meta: { title: 'Network scan', icon: 'radar', permission: 'scan:run', order: 20 } },
    { path: '/credentials', name: 'credentials', meta: { title: 'Credentials', icon: 'key', permission: 'credentials:read', order: 30 } },
    { path: '/diagnostics', name: 'diagnostics', meta: { title: 'Diagnostics', icon: 'stethoscope', permission: 'diagnostics:run', order: 40 } },
  ],
  async register(ctx) {
    const credentials = await openCredentialVault(ctx.store.namespace('credentials'), ctx.secrets);
    const devices = await openDeviceRegistry(ctx.store.namespace('devices'));
    ctx.provide('credentials', credentials);
    ctx.provide('devices', devices);
    ctx.provide('deviceAccess', {
      create: (options) => createDeviceAccess(devices, credentials, { ...options, amt: ctx.site.amt, tlsTrust: ctx.site.deviceTls }),
      problemResponses: DEVICE_PROBLEM_RESPONSES,
    });
    registerCredentialRoutes(ctx, credentials);
    registerDeviceRoutes(ctx, devices);
    await registerScanning(ctx, devices, credentials);
    registerDiagnosticRoutes(ctx, credentials, devices);
  },
});
