/** Options of the remote-monitor plugin (`plugins.remote-monitor.options`); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { Section } from '../../core/validation/schema-types.js';

export const REMOTE_MONITOR_CONFIG_SCHEMA = Section({
  /** Period in which every known device is probed once (`AMTGW_MONITOR_INTERVAL_S`). */
  intervalSeconds: Type.Number({ minimum: 0.2, maximum: 86400, default: 60 }),
  /** Probes in a row a device must miss before it counts as offline. */
  missedProbesOffline: Type.Integer({ minimum: 1, maximum: 100, default: 2 }),
  /** Devices being probed at once, across every in-flight sweep task. */
  concurrency: Type.Integer({ minimum: 1, maximum: 8192, default: 1024 }),
  /** Devices per sweep task. */
  batchSize: Type.Integer({ minimum: 1, maximum: 2048, default: 256 }),
  probe: Section({
    /** How long pongs are awaited after the last presence ping of a batch. */
    rmcpWindowMs: Type.Integer({ minimum: 0, maximum: 10000, default: 500 }),
    /** Pings sent back to back before a short pause (a burst overflows the receive buffer). */
    rmcpBatchSize: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
    /** TCP connect bound of the management-port fallback. */
    connectTimeoutMs: Type.Integer({ minimum: 50, maximum: 30000, default: 1000 }),
  }),
  /** Bounds of the hardware and event-log reads. */
  device: Section({
    connectTimeoutMs: Type.Integer({ minimum: 50, maximum: 60000, default: 3000 }),
    requestTimeoutMs: Type.Integer({ minimum: 100, maximum: 120000, default: 15000 }),
    /** Credentials tried per request at most when the device's known one fails (AMT locks out after 10 failures). */
    credentialAttempts: Type.Integer({ minimum: 1, maximum: 9, default: 3 }),
  }),
});

export type RemoteMonitorConfig = Static<typeof REMOTE_MONITOR_CONFIG_SCHEMA>;
