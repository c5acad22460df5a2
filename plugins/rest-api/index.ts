/**
 * rest-api: the scanner management service of the earlier release (fixed paths under /api):
 * credentials, devices, scans and diagnostics. Provides the `devices` and `credentials` services.
 */
import { definePlugin } from '../../core/plugin-api.js';
import type { DeviceRouter } from './api.js';
import { openCredentialVault } from './credentials/credential-vault.js';
import { registerCredentialRoutes } from './credentials/credential-routes.js';
import { openDeviceRegistry } from './devices/device-registry.js';
import { createDevicePresence } from './devices/presence/device-presence.js';
import { registerDeviceRoutes } from './devices/device-routes.js';
import { createDeviceAccess } from './devices/device-access.js';
import { DEVICE_PROBLEM_RESPONSES } from './devices/device-problems.js';
import { REST_API_CONFIG_SCHEMA, type RestApiConfig } from './config.js';
import { registerScanning } from './scans/register-scanning.js';
import { registerDiagnosticRoutes } from './diagnostics/diagnostic-routes.js';
import { createNetworkGuard } from './devices/device-networks.js';
import { openSignInMemory } from './sign-in/sign-in-memory.js';
import { registerSignInRoutes } from './sign-in/sign-in-routes.js';
import { createDeviceTurns } from './devices/device-turns.js';
import { openFileLimit, socketBudget } from './scans/socket-budget.js';

export default definePlugin<RestApiConfig>({
  name: 'rest-api',
  version: '1.0.0',
  kernel: '1',
  prefix: '/api',
  optionalDependencies: ['audit'],
  configSchema: REST_API_CONFIG_SCHEMA,
  permissions: [
    { name: 'scan:run', description: 'Start and cancel network scans' },
    { name: 'devices:read', description: 'Read the device list and scan results' },
    { name: 'devices:delete', description: 'Delete devices from the list' },
    { name: 'devices:trust', description: "Reset a device's pinned TLS certificate" },
    { name: 'devices:sign-in-reset', description: "Reset a device's sign-in memory (refused credentials, failed-login count)" },
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
    ctx.provide('devicePresence', createDevicePresence(devices, ctx.events));
    const signIn = await openSignInMemory(ctx.store.namespace('sign-in'), ctx.config.signIn, (id) => credentials.signInVersion(id), ctx.logger, {
      settled: (r) => void ((r.failedLogins > 0 || r.lockedOut) && ctx.events.publish('DeviceSignInFailed', { failedLogins: r.failedLogins, lockedOut: r.lockedOut })),
      paused: (reason) => ctx.events.publish('DeviceSignInPaused', { reason }),
    });
    const networks = createNetworkGuard(ctx.site.amt.allowedNetworks);
    const { scan } = ctx.config;
    const sockets = socketBudget(openFileLimit(), { deviceConnections: ctx.config.deviceConnections, probesPerScan: scan.defaultConcurrency, maxConcurrentScans: scan.maxConcurrentScans });
    if (sockets.warning) ctx.logger.warn(sockets.warning);
    else ctx.logger.debug('socket budget', { fileLimit: sockets.fileLimit, deviceConnections: sockets.deviceConnections, probesPerScan: sockets.probesPerScan });
    const turns = createDeviceTurns(sockets.deviceConnections);
    let router: DeviceRouter | null = null;
    ctx.provide('deviceAccess', {
      create: (options) =>
        createDeviceAccess({ devices, vault: credentials, signIn, networks, turns }, { ...options, amt: ctx.site.amt, tlsTrust: ctx.site.deviceTls, pool: ctx.pool, logger: ctx.logger, router: () => router, completed: (e) => ctx.events.publish('DeviceOperationCompleted', e) }),
      problemResponses: DEVICE_PROBLEM_RESPONSES,
      allows: networks.allows,
      setRouter: (next) => void (router = next),
    });
    registerCredentialRoutes(ctx, credentials);
    registerDeviceRoutes(ctx, devices);
    registerSignInRoutes(ctx, devices, credentials, signIn);
    await registerScanning(ctx, devices, credentials, signIn, turns, sockets);
    registerDiagnosticRoutes(ctx, credentials, devices, signIn, networks, () => router);
  },
});
