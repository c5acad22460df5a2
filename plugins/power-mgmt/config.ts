/** Options of the power-mgmt plugin (`plugins.power-mgmt.options`). */
export interface PowerMgmtConfig {
  /** Bounds of every device exchange: a device that is offline or stalls gives a problem, not a hang. */
  device: {
    connectTimeoutMs: number;
    requestTimeoutMs: number;
    /** Credentials tried per request at most when the device's known one fails (AMT locks out after 10 failures). */
    credentialAttempts: number;
  };
  /** Re-reads after an accepted change until the device reports the state the action leads to. */
  confirm: {
    attempts: number;
    intervalMs: number;
  };
  bulk: {
    /** Devices changed at once. */
    concurrency: number;
    /** Most devices in one request. */
    maxDevices: number;
  };
}

export const POWER_MGMT_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    device: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        connectTimeoutMs: { type: 'integer', minimum: 50, maximum: 60000, default: 3000 },
        requestTimeoutMs: { type: 'integer', minimum: 100, maximum: 120000, default: 10000 },
        credentialAttempts: { type: 'integer', minimum: 1, maximum: 9, default: 3 },
      },
    },
    confirm: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        attempts: { type: 'integer', minimum: 1, maximum: 30, default: 5 },
        intervalMs: { type: 'integer', minimum: 0, maximum: 60000, default: 1000 },
      },
    },
    bulk: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        concurrency: { type: 'integer', minimum: 1, maximum: 1024, default: 32 },
        maxDevices: { type: 'integer', minimum: 1, maximum: 10000, default: 1000 },
      },
    },
  },
};
