/** Options of the redirection plugin (`plugins.redirection.options`); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { Section } from '../../core/validation/schema-types.js';

export const REDIRECTION_CONFIG_SCHEMA = Section({
  /** Bounds of every device exchange (features, consent, a session's sign-in). */
  device: Section({
    connectTimeoutMs: Type.Integer({ minimum: 50, maximum: 60000, default: 3000 }),
    requestTimeoutMs: Type.Integer({ minimum: 100, maximum: 120000, default: 15000 }),
    credentialAttempts: Type.Integer({ minimum: 1, maximum: 9, default: 3 }),
  }),
  /** A session's WebSocket ticket is valid this long and once. */
  ticketTtlSeconds: Type.Integer({ minimum: 1, maximum: 300, default: 60 }),
  /** Deprecated and ignored: tickets are bounded per user (`maxTicketsPerUser`), so that no user's tickets hold back another's. */
  maxTickets: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, deprecated: true })),
  /** Tickets one user holds issued and not yet used, at most (each expires by itself). */
  maxTicketsPerUser: Type.Integer({ minimum: 1, maximum: 1000, default: 8 }),
  /** Sessions open at once on this gateway, at most. */
  maxSessions: Type.Integer({ minimum: 1, maximum: 10000, default: 500 }),
  /** Sessions of one user open (or opening) at once, at most. */
  maxSessionsPerUser: Type.Integer({ minimum: 1, maximum: 10000, default: 8 }),
  /** A session whose viewer sends nothing for this long is ended. */
  idleTimeoutSeconds: Type.Integer({ minimum: 1, maximum: 86400, default: 900 }),
  /**
   * How often open sessions check again that their user still exists and holds `remote:connect`.
   * A backstop: sign-outs, password changes, deletions and permission changes end sessions at once.
   */
  userCheckMs: Type.Integer({ minimum: 50, maximum: 60000, default: 2000 }),
  /** IDE redirection sessions (served by the gateway from uploaded images). */
  ider: Section({
    /** A session whose device asks for nothing for this long is ended (a reboot and a paused installer take a while). */
    idleTimeoutSeconds: Type.Integer({ minimum: 10, maximum: 86400, default: 1800 }),
    /** Heartbeat interval asked of the device and kept by the gateway; the device is gone after three silent ones. */
    heartbeatSeconds: Type.Integer({ minimum: 1, maximum: 60, default: 20 }),
    /** Image bytes read from disk and sent at a time; a session holds two such buffers. */
    pieceBytes: Type.Integer({ minimum: 8192, maximum: 1048576, default: 131072 }),
    /** How often an open session's progress goes to the hub (`IderSessionProgress`). */
    progressIntervalMs: Type.Integer({ minimum: 100, maximum: 60000, default: 1000 }),
    /** Bulk boots: devices handled at once, and at most per request. */
    bulkConcurrency: Type.Integer({ minimum: 1, maximum: 256, default: 8 }),
    bulkMaxDevices: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
    /** IDE-R sessions one user may hold (open or opening), apart from `maxSessionsPerUser`: a bulk boot of a row of machines holds one per machine. */
    maxSessionsPerUser: Type.Integer({ minimum: 1, maximum: 10000, default: 100 }),
  }),
  /**
   * Wrong consent codes, bounded here rather than left to the firmware: per device and user
   * `maxWrongCodes`, per device over all users `maxWrongCodesPerDevice`, within `windowSeconds`;
   * past either even the right code is refused (429) without reaching the device.
   */
  consent: Section({
    maxWrongCodes: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
    maxWrongCodesPerDevice: Type.Integer({ minimum: 1, maximum: 10000, default: 20 }),
    windowSeconds: Type.Integer({ minimum: 1, maximum: 86400, default: 900 }),
  }),
  /**
   * Origins (`https://console.example`) whose pages may open a session's WebSocket besides the
   * gateway's own; a browser's request from any other origin is refused (cross-site WebSocket hijacking).
   */
  origins: Type.Array(Type.String({ pattern: '^https?://[^/]+$' }), { maxItems: 64, default: [] }),
});

export type RedirectionConfig = Static<typeof REDIRECTION_CONFIG_SCHEMA>;
