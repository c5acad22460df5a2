/** HTTP, SOAP, hub, CIRA tunnels and remote console sessions, from the events their plugins publish. */
import { Counter, Gauge, type Registry } from 'prom-client';
import { RouteDurations } from './route-durations.js';
import type { EventBus } from '../../core/plugin-api.js';

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function registerTrafficMetrics(registry: Registry, events: EventBus): Array<() => void> {
  const http = new RouteDurations({
    name: 'amtgw_http_request_duration_seconds',
    help: 'HTTP requests on the main listener by route template (`unmatched` when no route took it), method and status',
    buckets: HTTP_BUCKETS,
    registry,
  });
  const soap = new Counter({ name: 'amtgw_soap_requests_total', help: 'MPSInterfaceService requests by operation and outcome', labelNames: ['operation', 'outcome'], registers: [registry] });
  const hubOpen = new Gauge({ name: 'amtgw_hub_connections', help: 'Hub (/scanHub) connections open now', registers: [registry] });
  const hubOpened = new Counter({ name: 'amtgw_hub_connections_opened_total', help: 'Hub connections opened', registers: [registry] });
  const tunnels = new Gauge({ name: 'amtgw_cira_tunnels', help: 'CIRA tunnels open now', registers: [registry] });
  const tunnelsOpened = new Counter({ name: 'amtgw_cira_tunnels_opened_total', help: 'CIRA tunnels opened (devices signed in)', registers: [registry] });
  const tunnelEnds = new Counter({ name: 'amtgw_cira_tunnel_ends_total', help: 'CIRA tunnels ended, by reason', labelNames: ['reason'], registers: [registry] });
  const consoleOpen = new Gauge({ name: 'amtgw_remote_console_sessions', help: 'Remote console sessions open now, by mode', labelNames: ['mode'], registers: [registry] });
  const consoleSessions = new Counter({ name: 'amtgw_remote_console_sessions_total', help: 'Remote console sessions opened, by mode', labelNames: ['mode'], registers: [registry] });
  const consoleBytes = new Counter({ name: 'amtgw_remote_console_bytes_total', help: 'Remote console payload bytes relayed, by mode and direction (counted when a session ends)', labelNames: ['mode', 'direction'], registers: [registry] });
  return [
    events.subscribe('HttpRequestCompleted', (e) => http.record(e.method, e.route ?? 'unmatched', e.status, e.durationSeconds)),
    events.subscribe('SoapRequestCompleted', (e) => soap.labels(e.operation, e.outcome).inc()),
    events.subscribe('HubConnectionsChanged', (e) => {
      hubOpen.set(e.open);
      if (e.change === 'opened') hubOpened.inc();
    }),
    events.subscribe('CiraTunnelUp', () => {
      tunnels.inc();
      tunnelsOpened.inc();
    }),
    events.subscribe('CiraTunnelDown', (e) => {
      tunnels.dec();
      tunnelEnds.labels(e.reason).inc();
    }),
    events.subscribe('RemoteConsoleSessionOpened', (e) => {
      consoleOpen.labels(e.mode).inc();
      consoleSessions.labels(e.mode).inc();
    }),
    events.subscribe('RemoteConsoleSessionClosed', (e) => {
      consoleOpen.labels(e.mode).dec();
      consoleBytes.labels(e.mode, 'to_device').inc(e.bytesToDevice);
      consoleBytes.labels(e.mode, 'from_device').inc(e.bytesFromDevice);
    }),
  ];
}
