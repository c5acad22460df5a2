/** Device operations, sign-ins to the gateway and to devices, from the events the kernel and rest-api publish. */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { EventBus } from '../../core/plugin-api.js';

/** From a 20 ms local exchange to a device behind a slow tunnel timing out. */
const OPERATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function registerOperationMetrics(registry: Registry, events: EventBus): Array<() => void> {
  const operations = new Counter({ name: 'amtgw_device_operations_total', help: 'Device operations (power, inventory, ...) by kind and outcome (`ok` or the problem code)', labelNames: ['operation', 'outcome'], registers: [registry] });
  const durations = new Histogram({ name: 'amtgw_device_operation_duration_seconds', help: 'Device operation duration, sign-in included', labelNames: ['operation'], buckets: OPERATION_BUCKETS, registers: [registry] });
  const signIns = new Counter({ name: 'amtgw_sign_in_attempts_total', help: 'Sign-ins to the gateway by outcome (`failure`: wrong name or password; `refused`: throttled) and door (`rest`, `soap`, or a plugin\'s)', labelNames: ['outcome', 'door'], registers: [registry] });
  const deviceFailures = new Counter({ name: 'amtgw_device_sign_in_failures_total', help: 'Failed logins the gateway caused on devices', registers: [registry] });
  const lockouts = new Counter({ name: 'amtgw_device_lockouts_total', help: 'Times a device answered that its account is locked', registers: [registry] });
  const pauses = new Counter({ name: 'amtgw_device_sign_in_pauses_total', help: 'Sign-ins to devices held back to keep their account from locking, by reason', labelNames: ['reason'], registers: [registry] });
  for (const outcome of ['success', 'failure', 'refused']) signIns.labels(outcome, 'rest').inc(0);
  for (const reason of ['locked-out', 'budget-spent']) pauses.labels(reason).inc(0);
  return [
    events.subscribe('DeviceOperationCompleted', (e) => {
      operations.labels(e.operation, e.outcome).inc();
      durations.labels(e.operation).observe(e.durationSeconds);
    }),
    events.subscribe('SignInAttempted', (e) => signIns.labels(e.outcome, e.door).inc()),
    events.subscribe('DeviceSignInFailed', (e) => {
      deviceFailures.inc(e.failedLogins);
      if (e.lockedOut) lockouts.inc();
    }),
    events.subscribe('DeviceSignInPaused', (e) => pauses.labels(e.reason).inc()),
  ];
}
