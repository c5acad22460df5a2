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
    defaultConcurrency: number;
    maxConcurrency: number;
    /** How long the RMCP pongs of a batch are collected. */
    rmcpWindowMs: number;
    /** Credentials tried per device at most (AMT locks out after 10 failures). */
    credentialAttemptsPerDevice: number;
    /** Devices interrogated at once per scan. */
    interrogationConcurrency: number;
    /** Total time for one WS-Management request. */
    requestTimeoutMs: number;
    /** Finished scans kept in the history. */
    historySize: number;
  };
  /** The per-device sign-in memory shared by scans, device operations and diagnostics. */
  signIn: {
    /** Failed logins in a row that lock a device's account (AMT: 10). */
    lockoutThreshold: number;
    /** Failed logins kept in hand below the threshold. */
    safetyMargin: number;
    /** How long a device that answered with its lockout page is left alone. */
    lockoutPauseSeconds: number;
  };
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
        defaultConcurrency: { type: 'integer', minimum: 1, maximum: 4096, default: 256 },
        maxConcurrency: { type: 'integer', minimum: 1, maximum: 4096, default: 1024 },
        rmcpWindowMs: { type: 'integer', minimum: 0, maximum: 10000, default: 500 },
        credentialAttemptsPerDevice: { type: 'integer', minimum: 1, maximum: 9, default: 3 },
        interrogationConcurrency: { type: 'integer', minimum: 1, maximum: 1024, default: 64 },
        requestTimeoutMs: { type: 'integer', minimum: 100, maximum: 120000, default: 10000 },
        historySize: { type: 'integer', minimum: 1, maximum: 10000, default: 200 },
      },
    },
    signIn: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        lockoutThreshold: { type: 'integer', minimum: 2, maximum: 1000, default: 10 },
        safetyMargin: { type: 'integer', minimum: 1, maximum: 999, default: 2 },
        lockoutPauseSeconds: { type: 'integer', minimum: 1, maximum: 86400, default: 120 },
      },
    },
  },
};
