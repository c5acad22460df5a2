/** Devices (computed at scrape from the device list) and scans (counted from the scan events). */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { EventBus } from '../../core/plugin-api.js';
import type { DeviceRegistry } from 'amt-gateway/devices';

/** How a device is reached now, as one label value: `lan`, `cira`, `lan+cira`, or `none`. */
function connectionOf(connections: readonly string[] | undefined, online: boolean): string {
  const kinds = connections ?? (online ? ['lan'] : []);
  return kinds.length === 0 ? 'none' : [...kinds].sort().join('+');
}

export function registerFleetMetrics(registry: Registry, events: EventBus, devices: (() => DeviceRegistry | undefined)): Array<() => void> {
  new Gauge({
    name: 'amtgw_devices',
    help: 'Known devices by how the gateway reaches them now and by sign-in status',
    labelNames: ['connection', 'auth_status'],
    registers: [registry],
    collect() {
      this.reset();
      const list = devices()?.list() ?? [];
      const counts = new Map<string, { connection: string; auth_status: string; n: number }>();
      for (const device of list) {
        const connection = connectionOf(device.connections, device.online);
        const key = `${connection}\u0000${device.authStatus}`;
        const entry = counts.get(key) ?? { connection, auth_status: device.authStatus, n: 0 };
        entry.n++;
        counts.set(key, entry);
      }
      for (const { n, ...labels } of counts.values()) this.set(labels, n);
    },
  });
  const started = new Counter({ name: 'amtgw_scans_started_total', help: 'Network scans started', registers: [registry] });
  const finished = new Counter({ name: 'amtgw_scans_finished_total', help: 'Network scans finished, by how they ended', labelNames: ['status'], registers: [registry] });
  const running = new Gauge({ name: 'amtgw_scans_running', help: 'Network scans running now', registers: [registry] });
  const probed = new Counter({ name: 'amtgw_scan_addresses_probed_total', help: 'Addresses scans have probed (TCP 16992/16993 and RMCP)', registers: [registry] });
  const found = new Counter({ name: 'amtgw_scan_devices_found_total', help: 'AMT devices scans found (a device found again by a later scan counts again)', registers: [registry] });
  const statusChanges = new Counter({ name: 'amtgw_device_status_changes_total', help: 'Devices going online or offline', labelNames: ['online'], registers: [registry] });
  for (const status of ['completed', 'cancelled', 'failed']) finished.labels(status).inc(0);

  // Progress carries a scan's running total; the counter takes the increments.
  const scannedSoFar = new Map<string, number>();
  const end = (status: string) => (scan: { id: string; scanned: number }) => {
    probed.inc(Math.max(0, scan.scanned - (scannedSoFar.get(scan.id) ?? 0)));
    scannedSoFar.delete(scan.id);
    finished.labels(status).inc();
    running.dec();
  };
  return [
    events.subscribe('ScanStarted', (scan) => {
      started.inc();
      running.inc();
      scannedSoFar.set(scan.id, 0);
    }),
    events.subscribe('ScanProgress', (p) => {
      const before = scannedSoFar.get(p.scanId);
      if (before === undefined || p.scanned <= before) return;
      probed.inc(p.scanned - before);
      scannedSoFar.set(p.scanId, p.scanned);
    }),
    events.subscribe('DeviceDiscovered', () => found.inc()),
    events.subscribe('ScanCompleted', end('completed')),
    events.subscribe('ScanCancelled', end('cancelled')),
    events.subscribe('ScanFailed', end('failed')),
    events.subscribe('DeviceStatusChanged', (e) => statusChanges.labels(String(e.online)).inc()),
  ];
}
