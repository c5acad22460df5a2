import type { PluginContext } from '../../../core/plugin-api.js';
import type { DeviceRegistry } from 'amt-gateway/devices';
import type { RestApiConfig } from '../config.js';
import { openScanHistory } from './scan-history.js';
import { registerScanRoutes } from './scan-routes.js';
import { createScanService, type ScanService } from './scan-service.js';

/** Counts the stored devices by the scan that last recorded them, once, for recounting interrupted scans. */
function devicesPerScan(devices: DeviceRegistry): (scanId: string) => number {
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
export async function registerScanning(ctx: PluginContext<RestApiConfig>): Promise<ScanService> {
  const devices = ctx.use('devices');
  const { cluster } = ctx;
  const history = await openScanHistory(ctx.store.namespace('scans'), ctx.config.scan.historySize, { self: cluster.self.id, isUp: (id) => cluster.isUp(id) });
  const interrupted = await history.markInterrupted(devicesPerScan(devices));
  if (interrupted.length) ctx.logger.warn('scans interrupted by the last stop', { scanIds: interrupted.map((s) => s.id) });
  // In a cluster: a scan runs on the instance that accepted it; any instance cancels it (forwarded
  // there), and the scans of an instance that went down are marked interrupted by the others.
  cluster.routeRequests((req) => {
    const owner = req.method === 'POST' && req.path.startsWith('/api/scan/cancel/') && req.params['id'] ? history.ownerOf(req.params['id']) : undefined;
    return owner && cluster.isUp(owner) ? owner : null;
  });
  cluster.onInstanceDown((id) => {
    void history
      .markInterrupted(devicesPerScan(devices), (owner) => owner === id)
      .then((scans) => scans.length && ctx.logger.warn('scans interrupted: their instance went down', { instance: id, scanIds: scans.map((s) => s.id) }))
      .catch((err: Error) => ctx.logger.warn('could not mark the scans of a down instance', { error: err.message }));
  });
  const scans = createScanService(
    { pool: ctx.pool, gate: ctx.use('deviceGate'), events: ctx.events, logger: ctx.logger, options: ctx.config.scan },
    history,
    ctx.use('credentials'),
  );
  registerScanRoutes(ctx, scans);
  ctx.onClose(() => scans.stopAll());
  return scans;
}
