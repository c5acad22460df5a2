import type { PluginContext } from '../../../core/plugin-api.js';
import type { RestApiConfig } from '../config.js';
import type { ManagedCredentialVault } from '../credentials/credential-vault.js';
import type { ManagedDeviceRegistry } from '../devices/device-registry.js';
import type { SignInMemory } from '../sign-in/sign-in-memory.js';
import type { DeviceTurns } from '../devices/device-turns.js';
import type { SocketBudget } from './socket-budget.js';
import { openScanHistory } from './scan-history.js';
import { registerScanRoutes } from './scan-routes.js';
import { createScanService, type ScanService } from './scan-service.js';

/** Counts the stored devices by the scan that last recorded them, once, for recounting interrupted scans. */
function devicesPerScan(devices: ManagedDeviceRegistry): (scanId: string) => number {
  let counts: Map<string, number> | undefined;
  return (scanId) => {
    if (!counts) {
      counts = new Map();
      for (const device of devices.list()) if (device.lastScanId) counts.set(device.lastScanId, (counts.get(device.lastScanId) ?? 0) + 1);
    }
    return counts.get(scanId) ?? 0;
  };
}

/** Wires scans: history (marking scans a dead process left running as interrupted), service, routes. */
export async function registerScanning(
  ctx: PluginContext<RestApiConfig>,
  devices: ManagedDeviceRegistry,
  vault: ManagedCredentialVault,
  signIn: SignInMemory,
  turns: DeviceTurns,
  sockets: SocketBudget,
): Promise<ScanService> {
  const history = await openScanHistory(ctx.store.namespace('scans'), ctx.config.scan.historySize);
  const interrupted = await history.markInterrupted(devicesPerScan(devices));
  if (interrupted.length) ctx.logger.warn('scans interrupted by the last stop', { scanIds: interrupted.map((s) => s.id) });
  const scans = createScanService(
    { pool: ctx.pool, devices, signIn, turns, events: ctx.events, logger: ctx.logger, amt: ctx.site.amt, tlsTrust: ctx.site.deviceTls, options: ctx.config.scan, sockets },
    history,
    vault,
  );
  registerScanRoutes(ctx, scans);
  ctx.onClose(() => scans.stopAll());
  return scans;
}
