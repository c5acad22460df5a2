import type { PluginContext } from '../../../core/plugin-api.js';
import type { RestApiConfig } from '../config.js';
import type { ManagedCredentialVault } from '../credentials/credential-vault.js';
import type { ManagedDeviceRegistry } from '../devices/device-registry.js';
import { openScanHistory } from './scan-history.js';
import { registerScanRoutes } from './scan-routes.js';
import { createScanService, type ScanService } from './scan-service.js';

/** Wires scans: history (marking scans a dead process left running as interrupted), service, routes. */
export async function registerScanning(ctx: PluginContext<RestApiConfig>, devices: ManagedDeviceRegistry, vault: ManagedCredentialVault): Promise<ScanService> {
  const history = await openScanHistory(ctx.store.namespace('scans'), ctx.config.scan.historySize);
  const interrupted = await history.markInterrupted();
  if (interrupted.length) ctx.logger.warn('scans interrupted by the last stop', { scanIds: interrupted.map((s) => s.id) });
  const scans = createScanService(
    { pool: ctx.pool, devices, events: ctx.events, logger: ctx.logger, amt: ctx.site.amt, tlsTrust: ctx.site.deviceTls, options: ctx.config.scan },
    history,
    vault,
  );
  registerScanRoutes(ctx, scans);
  ctx.onClose(() => scans.stopAll());
  return scans;
}
