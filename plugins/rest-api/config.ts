import type { SignInSettings } from 'amt-gateway/devices';

/** Options of the rest-api plugin (`plugins.rest-api.options`). */
export interface RestApiConfig {
  scan: {
    /** Widest range one scan may cover. */
    maxAddresses: number;
    /** Scans that may run at once. */
    maxConcurrentScans: number;
    /** Addresses per worker-pool task. */
    batchSize: number;
    /** Per-scan defaults and the bounds a request may ask for. */
    defaultTimeoutMs: number;
    maxTimeoutMs: number;
    /** Probes (sockets) in flight per scan; a request may ask up to the maximum. Lowered to fit `ulimit -n`. */
    defaultConcurrency: number;
    maxConcurrency: number;
    /** New TCP probes per second per scan (the RMCP pings go at the same pace, one per address). */
    probeRate: number;
    /** The least a probe timeout adapts down to; the scan's timeoutMs is where it starts and the most it is. */
    minProbeTimeoutMs: number;
    /** How long the RMCP pongs of a batch are collected. */
    rmcpWindowMs: number;
    /** Credentials tried per device at most (AMT locks out after 10 failures). */
    credentialAttemptsPerDevice: number;
    /**
     * A scan's own cap on devices read at once. Within it the device gate admits reads by what they
     * cost (plugins/devices/gate/device-admission.ts), up to `deviceConnections`, one connection per device.
     */
    interrogationConcurrency: number;
    /** Total time for one WS-Management request. */
    requestTimeoutMs: number;
    /** Finished scans kept in the history. */
    historySize: number;
  };
  /** @deprecated: `plugins.devices.options.deviceConnections` (applied to the devices plugin when set here). */
  deviceConnections?: number;
  /** @deprecated: `plugins.devices.options.signIn` (applied to the devices plugin when set here). */
  signIn?: Partial<SignInSettings>;
}

export const REST_API_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    scan: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxAddresses: { type: 'integer', minimum: 1, maximum: 16777216, default: 65536 },
        maxConcurrentScans: { type: 'integer', minimum: 1, maximum: 64, default: 4 },
        batchSize: { type: 'integer', minimum: 1, maximum: 16384, default: 2048 },
        defaultTimeoutMs: { type: 'integer', minimum: 50, maximum: 60000, default: 1000 },
        maxTimeoutMs: { type: 'integer', minimum: 50, maximum: 60000, default: 10000 },
        defaultConcurrency: { type: 'integer', minimum: 1, maximum: 65536, default: 4096 },
        maxConcurrency: { type: 'integer', minimum: 1, maximum: 65536, default: 16384 },
        probeRate: { type: 'integer', minimum: 1, maximum: 1000000, default: 50000 },
        minProbeTimeoutMs: { type: 'integer', minimum: 1, maximum: 60000, default: 100 },
        rmcpWindowMs: { type: 'integer', minimum: 0, maximum: 10000, default: 500 },
        credentialAttemptsPerDevice: { type: 'integer', minimum: 1, maximum: 9, default: 3 },
        interrogationConcurrency: { type: 'integer', minimum: 1, maximum: 65536, default: 1024 },
        requestTimeoutMs: { type: 'integer', minimum: 100, maximum: 120000, default: 10000 },
        historySize: { type: 'integer', minimum: 1, maximum: 10000, default: 200 },
      },
    },
    // Deprecated (now the devices plugin's options): accepted without defaults, so only a site's own values are passed on.
    deviceConnections: { type: 'integer', minimum: 1, maximum: 65536 },
    signIn: {
      type: 'object',
      additionalProperties: false,
      properties: { lockoutThreshold: { type: 'integer', minimum: 2, maximum: 1000 }, safetyMargin: { type: 'integer', minimum: 1, maximum: 999 }, lockoutPauseSeconds: { type: 'integer', minimum: 1, maximum: 86400 } },
    },
  },
};
