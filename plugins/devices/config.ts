/** Options of the devices plugin (`plugins.devices.options`); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { Section } from '../../core/validation/schema-types.js';

export const DEVICES_CONFIG_SCHEMA = Section({
  /**
   * Operations that may wait on devices at once, gateway-wide (scans, power, monitor reads,
   * diagnostics, tunnel reads; each holds one socket, one per device at most). Lowered to fit `ulimit -n`.
   */
  deviceConnections: Type.Integer({ minimum: 1, maximum: 65536, default: 1024 }),
  /**
   * Operations the gate admits at once below `deviceConnections`, following the event-loop delay of
   * the threads doing them (gate/device-admission.ts): `start` after a quiet spell, never fewer than `minimum`.
   */
  admission: Section({
    start: Type.Integer({ minimum: 1, maximum: 65536, default: 64 }),
    minimum: Type.Integer({ minimum: 1, maximum: 65536, default: 8 }),
  }),
  /** The per-device sign-in memory shared by every device path (AMT locks an account after 10 failed logins in a row). */
  signIn: Section({
    /** Failed logins in a row that lock the device's account. */
    lockoutThreshold: Type.Integer({ minimum: 2, maximum: 1000, default: 10 }),
    /** Failed logins kept in hand below the threshold (other clients of the device, a late retry). */
    safetyMargin: Type.Integer({ minimum: 1, maximum: 999, default: 2 }),
    /** How long a device that said it is locked is left alone. */
    lockoutPauseSeconds: Type.Integer({ minimum: 1, maximum: 86400, default: 120 }),
  }),
});

export type DevicesConfig = Static<typeof DEVICES_CONFIG_SCHEMA>;
