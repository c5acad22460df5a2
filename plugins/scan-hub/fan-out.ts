import type { EventBus, GatewayEvents } from '../../core/plugin-api.js';
import type { Scan, ScanProgressEvent } from 'amt-gateway/rest-api';
import { HUB_EVENTS, scanIdOf, TERMINAL_SCAN_EVENTS, type HubEventName, type OutgoingEvent } from './hub-events.js';
import { ProgressThrottle } from './progress-throttle.js';
import { invocationRecord } from './protocol.js';

const completeProgress = (scan: Scan): ScanProgressEvent => ({ scanId: scan.id, scanned: scan.total, total: scan.total, found: scan.found, percent: 100 });

/** Progress events replace their predecessors in a slow client's outbox: per scan, per IDE-R session (not its last). */
function coalesceKeyOf(name: HubEventName, payload: GatewayEvents[HubEventName], scanId: string | undefined): string | undefined {
  if (name === 'ScanProgress') return `progress:${scanId}`;
  if (name === 'IderSessionProgress') {
    const progress = payload as GatewayEvents['IderSessionProgress'];
    return progress.ended ? undefined : `ider:${progress.sessionId}`;
  }
  return undefined;
}

/**
 * Takes the hub's events from the bus and hands each, encoded once, to `broadcast`.
 * ScanProgress is held to the contract's rate first. Returns the function that stops it.
 */
export function startFanOut(events: EventBus, progressMinIntervalMs: number, broadcast: (event: OutgoingEvent) => void): () => void {
  const forward = (name: HubEventName, payload: GatewayEvents[HubEventName]) => {
    const scanId = scanIdOf(name, payload);
    broadcast({ name, frame: invocationRecord(name, payload), scanId, coalesceKey: coalesceKeyOf(name, payload, scanId) });
  };
  const throttle = new ProgressThrottle(progressMinIntervalMs, (progress) => forward('ScanProgress', progress));
  const unsubscribers = HUB_EVENTS.map((name) =>
    events.subscribe(name, (payload) => {
      if (name === 'ScanProgress') return throttle.push(payload as GatewayEvents['ScanProgress']);
      const scanId = scanIdOf(name, payload);
      // Progress held back must reach clients before the scan's final event.
      if (scanId !== undefined && TERMINAL_SCAN_EVENTS.has(name)) throttle.end(scanId, name === 'ScanCompleted' ? completeProgress(payload as Scan) : undefined);
      forward(name, payload);
    }),
  );
  return () => {
    for (const unsubscribe of unsubscribers) unsubscribe();
    throttle.close();
  };
}
