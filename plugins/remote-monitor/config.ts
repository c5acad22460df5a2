/** Options of the remote-monitor plugin (`plugins.remote-monitor.options`). */
export interface RemoteMonitorConfig {
  /** Period in which every known device is probed once (`AMTGW_MONITOR_INTERVAL_S`). */
  intervalSeconds: number;
  /** Probes in a row a device must miss before it counts as offline. */
  missedProbesOffline: number;
  /** Devices being probed at once, across every in-flight sweep task. */
  concurrency: number;
  /** Devices per sweep task. */
  batchSize: number;
  probe: {
    /** How long pongs are awaited after the last presence ping of a batch. */
    rmcpWindowMs: number;
    /** Pings sent back to back before a short pause (a burst overflows the receive buffer). */
    rmcpBatchSize: number;
    /** TCP connect bound of the management-port fallback. */
    connectTimeoutMs: number;
  };
  /** Bounds of the hardware and event-log reads. */
  device: {
    connectTimeoutMs: number;
    requestTimeoutMs: number;
    /** Credentials tried per request at most when the device's known one fails (AMT locks out after 10 failures). */
    credentialAttempts: number;
  };
}

export const REMOTE_MONITOR_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    intervalSeconds: { type: 'number', minimum: 0.2, maximum: 86400, default: 60 },
    missedProbesOffline: { type: 'integer', minimum: 1, maximum: 100, default: 2 },
    concurrency: { type: 'integer', minimum: 1, maximum: 8192, default: 1024 },
    batchSize: { type: 'integer', minimum: 1, maximum: 2048, default: 256 },
    probe: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        rmcpWindowMs: { type: 'integer', minimum: 0, maximum: 10000, default: 500 },
        rmcpBatchSize: { type: 'integer', minimum: 1, maximum: 1000, default: 50 },
        connectTimeoutMs: { type: 'integer', minimum: 50, maximum: 30000, default: 1000 },
      },
    },
    device: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        connectTimeoutMs: { type: 'integer', minimum: 50, maximum: 60000, default: 3000 },
        requestTimeoutMs: { type: 'integer', minimum: 100, maximum: 120000, default: 15000 },
        credentialAttempts: { type: 'integer', minimum: 1, maximum: 9, default: 3 },
      },
    },
  },
};
