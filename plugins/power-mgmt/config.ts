/** Options of the power-mgmt plugin (`plugins.power-mgmt.options`); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { Section } from '../../core/validation/schema-types.js';

export const POWER_MGMT_CONFIG_SCHEMA = Section({
  /** Bounds of every device exchange: a device that is offline or stalls gives a problem, not a hang. */
  device: Section({
    connectTimeoutMs: Type.Integer({ minimum: 50, maximum: 60000, default: 3000 }),
    requestTimeoutMs: Type.Integer({ minimum: 100, maximum: 120000, default: 10000 }),
    /** Credentials tried per request at most when the device's known one fails (AMT locks out after 10 failures). */
    credentialAttempts: Type.Integer({ minimum: 1, maximum: 9, default: 3 }),
  }),
  /** Re-reads after an accepted change until the device reports the state the action leads to. */
  confirm: Section({
    attempts: Type.Integer({ minimum: 1, maximum: 30, default: 5 }),
    intervalMs: Type.Integer({ minimum: 0, maximum: 60000, default: 1000 }),
  }),
  bulk: Section({
    /** Devices changed at once. */
    concurrency: Type.Integer({ minimum: 1, maximum: 1024, default: 32 }),
    /** Most devices in one request. */
    maxDevices: Type.Integer({ minimum: 1, maximum: 10000, default: 1000 }),
  }),
});

export type PowerMgmtConfig = Static<typeof POWER_MGMT_CONFIG_SCHEMA>;
