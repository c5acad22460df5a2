import type { SignInSettings } from './api.js';

/** Options of the devices plugin (`plugins.devices.options`). */
export interface DevicesConfig {
  /**
   * Operations that may wait on devices at once, gateway-wide (scans, power, monitor reads,
   * diagnostics, tunnel reads; each holds one socket, one per device at most). Lowered to fit `ulimit -n`.
   */
  deviceConnections: number;
  /**
   * Operations the gate admits at once below `deviceConnections`, following the event-loop delay of
   * the threads doing them (gate/device-admission.ts): `start` after a quiet spell, never fewer than `minimum`.
   */
  admission: { start: number; minimum: number };
  /** The per-device sign-in memory shared by every device path (AMT locks an account after 10 failed logins in a row). */
  signIn: SignInSettings;
}

const SIGN_IN_OPTIONS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    lockoutThreshold: { type: 'integer', minimum: 2, maximum: 1000, default: 10 },
    safetyMargin: { type: 'integer', minimum: 1, maximum: 999, default: 2 },
    lockoutPauseSeconds: { type: 'integer', minimum: 1, maximum: 86400, default: 120 },
  },
};

export const DEVICES_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    deviceConnections: { type: 'integer', minimum: 1, maximum: 65536, default: 1024 },
    admission: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        start: { type: 'integer', minimum: 1, maximum: 65536, default: 64 },
        minimum: { type: 'integer', minimum: 1, maximum: 65536, default: 8 },
      },
    },
    signIn: { ...SIGN_IN_OPTIONS_SCHEMA, default: {} },
  },
};
