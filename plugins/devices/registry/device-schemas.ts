/**
 * The device's shape (what the API answers and the registry stores), the DeviceStatusChanged event
 * the devices plugin publishes, and the device list's query:
 * TypeBox schemas, their types derived. TypeBox and core/validation/schema-types only, so that the
 * operator console can import the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DateTime, Nullable, NullableEnum, NullableString, StringEnum } from '../../../core/validation/schema-types.js';

export const PROVISIONING_STATES = ['PRE', 'IN', 'POST'] as const;
/** `locked-out-risk`: sign-ins are paused so that the device's account is not locked (see the sign-in memory). */
export const AUTH_STATUSES = ['ok', 'unauthorized', 'unreachable', 'error', 'locked-out-risk'] as const;
/** How the gateway reaches a device now: on the local network, and/or through its CIRA tunnel. */
export const DEVICE_CONNECTIONS = ['lan', 'cira'] as const;

/** A discovered AMT device, as the API answers it and the registry stores it. */
export const DEVICE_SCHEMA = Type.Object({
  id: Type.String(),
  ipAddress: Type.String({ format: 'ipv4' }),
  hostname: NullableString(),
  /** Domain name from AMT_GeneralSettings, when known. */
  domain: Type.Optional(NullableString()),
  firmwareVersion: NullableString({ description: 'AMT firmware version, e.g. 15.0.23.1706' }),
  provisioningState: NullableEnum(PROVISIONING_STATES, { description: 'AMT provisioning state 0, 1, 2; null when unknown' }),
  provisioningMode: Type.Optional(NullableEnum(['ACM', 'CCM'])),
  uuid: Type.Optional(NullableString()),
  tls: Type.Boolean({ description: 'Whether the device answers on the TLS port (16993)' }),
  tlsFingerprint: Type.Optional(NullableString({ description: 'SHA-256 of the certificate pinned on first contact' })),
  openPorts: Type.Array(Type.Integer()),
  authStatus: StringEnum(AUTH_STATUSES, {
    description:
      '`locked-out-risk`: sign-ins to the device are paused because another failed login could lock its account (the budget below the lockout is spent, or the device said it is locked); `GET /api/devices/{id}/sign-in` says why, `DELETE` resets it',
  }),
  credentialId: Type.Optional(NullableString()),
  online: Type.Boolean({ description: 'True while `connections` is not empty' }),
  connections: Type.Optional(
    Type.Array(StringEnum(DEVICE_CONNECTIONS), {
      uniqueItems: true,
      description: 'How the gateway reaches the device now: `lan` (it answers on the local network), `cira` (it holds a CIRA tunnel)',
    }),
  ),
  firstSeen: DateTime(),
  lastSeen: DateTime(),
  lastScanId: NullableString(),
});

export type Device = Static<typeof DEVICE_SCHEMA>;

/** `DeviceStatusChanged` on the event bus and the hub: a device's `online` flipped (presence). */
export const DEVICE_STATUS_CHANGED_EVENT_SCHEMA = Type.Object({
  deviceId: Type.String(),
  online: Type.Boolean(),
  lastSeen: Nullable(DateTime()),
});

export type DeviceStatusChangedEvent = Static<typeof DEVICE_STATUS_CHANGED_EVENT_SCHEMA>;
export type ProvisioningState = (typeof PROVISIONING_STATES)[number];
export type AuthStatus = (typeof AUTH_STATUSES)[number];
export type DeviceConnection = (typeof DEVICE_CONNECTIONS)[number];

export const PAGING_QUERY_PROPERTIES = {
  offset: Type.Integer({ minimum: 0, default: 0, description: 'Items to skip' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Items to return (at most 1000)' })),
};

export const DEVICE_LIST_QUERY = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 255, description: 'Hostname or address substring' })),
  provisioningState: Type.Optional(StringEnum(PROVISIONING_STATES)),
  online: Type.Optional(Type.Boolean()),
  ...PAGING_QUERY_PROPERTIES,
});
