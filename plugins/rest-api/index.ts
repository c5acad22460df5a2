/**
 * rest-api: the scanner's and diagnostics' HTTP surface of the earlier release (fixed paths under
 * /api). The device domain (devices, credentials, sign-in memory, the device gate) is the `devices`
 * plugin's; scans and diagnostics reach devices only through its gate.
 */
import { REST_API_COLLECTIONS } from './collections.js';
import { definePlugin } from '../../core/plugin-api.js';
import { REST_API_CONFIG_SCHEMA, type RestApiConfig } from './config.js';
import { registerScanning } from './scans/register-scanning.js';
import { registerDiagnosticRoutes } from './diagnostics/diagnostic-routes.js';

export default definePlugin<RestApiConfig>({
  name: 'rest-api',
  collections: REST_API_COLLECTIONS,
  version: '1.1.0',
  kernel: '1',
  prefix: '/api',
  dependencies: ['devices'],
  optionalDependencies: ['audit'],
  configSchema: REST_API_CONFIG_SCHEMA,
  permissions: [
    { name: 'scan:run', description: 'Start and cancel network scans' },
    { name: 'diagnostics:run', description: 'Run credential and WS-Management diagnostics' },
  ],
  routes: [
    { path: '/scan', name: 'scan', meta: { title: 'Network scan', icon: 'radar', permission: 'scan:run', order: 20 } },
    { path: '/diagnostics', name: 'diagnostics', meta: { title: 'Diagnostics', icon: 'stethoscope', permission: 'diagnostics:run', order: 40 } },
  ],
  async register(ctx) {
    const gate = ctx.use('deviceGate');
    const { deviceConnections, signIn, scan } = ctx.config;
    if (deviceConnections !== undefined || signIn !== undefined) {
      gate.applyDeprecatedOptions('rest-api', { ...(deviceConnections !== undefined ? { deviceConnections } : {}), ...(signIn ? { signIn } : {}) });
    }
    const sockets = gate.probeBudget({ probesPerScan: scan.defaultConcurrency, maxConcurrentScans: scan.maxConcurrentScans });
    if (sockets.warning) ctx.logger.warn(sockets.warning);
    else ctx.logger.debug('socket budget', { fileLimit: sockets.fileLimit, deviceConnections: gate.deviceConnections, probesPerScan: sockets.probesPerScan });
    await registerScanning(ctx);
    registerDiagnosticRoutes(ctx);
  },
});
