/**
 * Follows a scan as a front end would: over /scanHub with the @microsoft/signalr client, calling
 * `onUpdate` on each progress or discovery event, until the scan ends.
 */
import { scanHubConnection } from '../helpers/scan-hub-connection.js';
import type { Device, Scan, ScanProgressEvent } from '../../plugins/rest-api/api.js';

export interface ScanUpdate {
  percent: number;
  scanned: number;
  total: number;
  found: number;
}

export interface ScanWatch {
  /** Resolves with the final scan once `scanId`'s ScanCompleted, ScanCancelled or ScanFailed arrives. */
  follow(scanId: string, onUpdate: (update: ScanUpdate) => void): Promise<Scan>;
  stop(): Promise<void>;
}

export async function watchScans(baseUrl: string, token: string): Promise<ScanWatch> {
  const hub = scanHubConnection(baseUrl, token);
  await hub.start();
  return {
    follow(scanId, onUpdate) {
      let update: ScanUpdate = { percent: 0, scanned: 0, total: 0, found: 0 };
      return new Promise<Scan>((resolve) => {
        hub.on('ScanProgress', (p: ScanProgressEvent) => {
          if (p.scanId !== scanId) return;
          update = { percent: p.percent, scanned: p.scanned, total: p.total, found: Math.max(update.found, p.found) };
          onUpdate(update);
        });
        hub.on('DeviceDiscovered', (e: { scanId: string; device: Device }) => {
          if (e.scanId !== scanId) return;
          update = { ...update, found: update.found + 1 };
          onUpdate(update);
        });
        for (const end of ['ScanCompleted', 'ScanCancelled', 'ScanFailed']) {
          hub.on(end, (scan: Scan) => {
            if (scan.id === scanId) resolve(scan);
          });
        }
        void hub.invoke('SubscribeScan', scanId);
      });
    },
    stop: () => hub.stop(),
  };
}
