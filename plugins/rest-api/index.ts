/**
 * rest-api: the scanner management service of the earlier release (fixed paths under /api):
 * credentials, devices, scans and diagnostics. Provides the `devices` and `credentials` services.
 */
import { definePlugin } from '../../core/plugin-api.js';
import type { DeviceRouter } from './api.js';
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
  permissions: [{ name: 'devices:trust', description: "Reset a device's pinned TLS certificate" }],
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
    let router: DeviceRouter | null = null;
    ctx.provide('deviceAccess', {
      create: (options) => createDeviceAccess(devices, credentials, { ...options, amt: ctx.site.amt, tlsTrust: ctx.site.deviceTls, router: () => router }),
      problemResponses: DEVICE_PROBLEM_RESPONSES,
      setRouter: (next) => void (router = next),
    });
    registerCredentialRoutes(ctx, credentials);
    registerDeviceRoutes(ctx, devices);
    await registerScanning(ctx, devices, credentials);
    registerDiagnosticRoutes(ctx, credentials, devices, () => router);
  },
});
