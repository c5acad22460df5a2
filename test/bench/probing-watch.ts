/**
 * When a scan's probing ended, as a front end sees it: the first ScanProgress on /scanHub (the real
 * @microsoft/signalr client) with every TCP probe decided. The scan's `scanned` counts an address
 * once its read is done too, so it cannot tell where the probing ended.
 */
import { scanHubConnection } from '../helpers/scan-hub-connection.js';
import type { ScanProgressEvent } from '../../plugins/rest-api/api.js';

export interface ProbingWatch {
  subscribe(scanId: string): Promise<void>;
  /** performance.now() when every probe was first seen decided, or null. */
  probedAt(): number | null;
  stop(): Promise<void>;
}

export async function watchProbing(baseUrl: string, token: string): Promise<ProbingWatch> {
  const hub = scanHubConnection(baseUrl, token);
  let probedAt: number | null = null;
  let scanId: string | null = null;
  hub.on('ScanProgress', (p: ScanProgressEvent) => {
    if (probedAt === null && p.scanId === scanId && p.probesTotal !== undefined && (p.probesDecided ?? 0) >= p.probesTotal) probedAt = performance.now();
  });
  await hub.start();
  return {
    async subscribe(id) {
      scanId = id;
      await hub.invoke('SubscribeScan', id);
    },
    probedAt: () => probedAt,
    stop: () => hub.stop(),
  };
}
