/**
 * devices: the device domain. The device registry, the credential vault, the sign-in memory, the
 * allowed-networks guard, device TLS trust, and the device gate every device operation passes
 * (gate/device-gate.ts). Provides `devices`, `credentials`, `devicePresence` and `deviceGate`; owns
 * the routes about devices and credentials (fixed paths under /api).
 */
import { DEVICES_COLLECTIONS } from './collections.js';
import { definePlugin } from '../../core/plugin-api.js';
import { DEVICES_CONFIG_SCHEMA, type DevicesConfig } from './config.js';
import { openCredentialVault } from './credentials/credential-vault.js';
import { registerCredentialRoutes } from './credentials/credential-routes.js';
import { openDeviceRegistry } from './registry/device-registry.js';
import { createDevicePresence } from './presence/device-presence.js';
import { registerDeviceRoutes } from './registry/device-routes.js';
import { openSignInMemory } from './sign-in/sign-in-memory.js';
import { registerSignInRoutes } from './sign-in/sign-in-routes.js';
import { createNetworkGuard } from './gate/device-networks.js';
import { createDeviceTurns } from './gate/device-turns.js';
import { createDevicePaths } from './gate/device-paths.js';
import { createDeviceGate } from './gate/device-gate.js';
import { createGateService, fitDeviceConnections } from './gate/gate-service.js';
import { readDeviceSettings, siteSettingsOf } from './settings.js';
import { createTurnTableMemory, TurnTable } from '../../workers/amt/turn-table.js';
import type { DeviceTurnProvider } from './api.js';
import { clusterTurnProvider, clusterSignInMemory } from './cluster/cluster-turns.js';

export default definePlugin<DevicesConfig>({
  name: 'devices',
  version: '2.0.0',
  kernel: '1',
  prefix: '/api',
  // The domain's data stays where the releases before the split kept it (rest-api's store), so an upgrade finds it.
  storeNamespace: 'rest-api',
  collections: DEVICES_COLLECTIONS,
  optionalDependencies: ['audit'],
  configSchema: DEVICES_CONFIG_SCHEMA,
  // Where the device settings lived before kernel API 1.5: still read, with a deprecation warning.
  formerSections: ['amt'],
  env: {
    AMTGW_ALLOWED_NETWORKS: { option: 'allowedNetworks', type: 'list' },
    AMTGW_LEGACY_TLS: { option: 'legacyTls', type: 'boolean' },
  },
  permissions: [
    { name: 'devices:read', description: 'Read the device list and scan results' },
    { name: 'devices:delete', description: 'Delete devices from the list' },
    { name: 'devices:trust', description: "Reset a device's pinned TLS certificate" },
    { name: 'devices:sign-in-reset', description: "Reset a device's sign-in memory (refused credentials, failed-login count)" },
    { name: 'credentials:read', description: 'List stored device credentials (never their passwords)' },
    { name: 'credentials:write', description: 'Create, change and delete device credentials' },
  ],
  routes: [
    { path: '/devices', name: 'devices', meta: { title: 'Devices', icon: 'computer', permission: 'devices:read', order: 10 } },
    { path: '/credentials', name: 'credentials', meta: { title: 'Credentials', icon: 'key', permission: 'credentials:read', order: 30 } },
  ],
  async register(ctx) {
    const credentials = await openCredentialVault(ctx.store.namespace('credentials'), ctx.secrets);
    const devices = await openDeviceRegistry(ctx.store.namespace('devices'));
    // Other plugins see the list and the seal check; unsealing stays with the gate.
    ctx.provide('credentials', {
      list: () => credentials.list(),
      checkSealed: (id) => credentials.checkSealed(id),
      passwordMatches: (id, password) => credentials.passwordMatches(id, password),
      boundTo: (uuid) => credentials.boundTo(uuid),
      bind: (uuid, input) => credentials.bind(uuid, input),
      rebind: (uuid, input) => credentials.rebind(uuid, input),
      unbind: (uuid) => credentials.unbind(uuid),
    });
    ctx.provide('devices', devices);
    ctx.provide('devicePresence', createDevicePresence(devices, ctx.events));
    // A copy the sign-in memory reads at each plan: rest-api's deprecated options may still adjust it before start.
    const signInSettings = { ...ctx.config.signIn };
    const localSignIn = await openSignInMemory(ctx.store.namespace('sign-in'), signInSettings, (id) => credentials.signInVersion(id), ctx.logger, {
      settled: (r) => void ((r.failedLogins > 0 || r.lockedOut) && ctx.events.publish('DeviceSignInFailed', { failedLogins: r.failedLogins, lockedOut: r.lockedOut })),
      paused: (reason) => ctx.events.publish('DeviceSignInPaused', { reason }),
    });
    // In a cluster, a device's sign-in budget is the cluster's (cluster/cluster-turns.ts).
    const signIn = ctx.cluster.enabled ? clusterSignInMemory(localSignIn, ctx.cluster) : localSignIn;
    const settings = readDeviceSettings(ctx.config);
    const networks = createNetworkGuard(settings.allowedNetworks);
    // One turn per device, shared by the gate's operations here and the probes of the worker threads, and by a provider beyond this gateway:
    // in a cluster, the cluster's turn, registered here (a plugin registering another is refused, GW_ERR_DEVICE_TURN_CLASH).
    const table = new TurnTable(createTurnTableMemory());
    const turnProvider: { current: DeviceTurnProvider | undefined } = { current: ctx.cluster.enabled ? clusterTurnProvider(ctx.cluster) : undefined };
    const turns = createDeviceTurns({ maximum: fitDeviceConnections(ctx.config.deviceConnections, ctx.logger), ...ctx.config.admission }, () => ctx.pool.threadLoad(), { table, provider: () => turnProvider.current });
    ctx.onClose(() => turns.close());
    const paths = createDevicePaths();
    const gate = createDeviceGate({ devices, vault: credentials, signIn, networks, turns, paths, settings, pool: ctx.pool, logger: ctx.logger });
    ctx.provide(
      'deviceGate',
      createGateService({
        gate, devices, credentials, signIn, turns, table, turnProvider, signInSettings, settings, pool: ctx.pool, logger: ctx.logger,
        completed: (e) => ctx.events.publish('DeviceOperationCompleted', e),
      }),
    );
    // Where plugins of kernel API 1.0-1.4 read these settings (deprecated).
    const site = siteSettingsOf(ctx.config, settings);
    ctx.extendSite('amt', site.amt);
    ctx.extendSite('deviceTls', site.deviceTls);
    registerCredentialRoutes(ctx, credentials);
    registerDeviceRoutes(ctx, devices);
    registerSignInRoutes(ctx, devices, credentials, signIn);
  },
});
