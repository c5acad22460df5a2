/** Options of the devices plugin (`plugins.devices.options`); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { Section, NullableString, StringEnum } from '../../core/validation/schema-types.js';

/** The private ranges and loopback: where a site's devices usually are. */
const PRIVATE_NETWORKS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8'];

/**
 * The device settings that lived in the site file's `amt` section before kernel API 1.5 (the plugin
 * claims that section: `formerSections`, so `amt.allowedNetworks` still applies, with a warning).
 */
const DEVICE_SITE_OPTIONS = {
  /** The device ports probed and used: WS-Management over HTTP and TLS, and the RMCP presence ping (0 disables it). */
  ports: Section({
    http: Type.Integer({ minimum: 1, maximum: 65535, default: 16992 }),
    https: Type.Integer({ minimum: 1, maximum: 65535, default: 16993 }),
    rmcp: Type.Integer({ minimum: 0, maximum: 65535, default: 623, description: '0 disables the RMCP ping' }),
  }),
  /** CIDRs scans, diagnostics and every other device I/O may reach (`AMTGW_ALLOWED_NETWORKS`). */
  allowedNetworks: Type.Array(Type.String({ pattern: '^\\d{1,3}(\\.\\d{1,3}){3}/\\d{1,2}$' }), { default: PRIVATE_NETWORKS }),
  /** `tofu`: pin each device's certificate on first contact and refuse a changed one; `ca`: validate against `caFile`. */
  tlsTrust: StringEnum(['tofu', 'ca'], { default: 'tofu' }),
  /** PEM bundle of the CAs that sign device certificates (`tlsTrust: ca`), read once at start. */
  caFile: NullableString({ default: null }),
  /**
   * Reach devices that offer only TLS 1.0/1.1 (AMT 9-11): older protocol versions, OpenSSL security
   * level 0, legacy renegotiation; logged once per device when used (`AMTGW_LEGACY_TLS`).
   */
  legacyTls: Type.Boolean({ default: false }),
};

export const DEVICES_CONFIG_SCHEMA = Section({
  ...DEVICE_SITE_OPTIONS,
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
