/** Options of the `scan-hub` plugin (site config `plugins.scan-hub.options`), defaults applied; the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';

/** The kernel validates the site options against it and applies the defaults. */
export const HUB_CONFIG_SCHEMA = Type.Object(
  {
    /** The server sends a Ping when it has sent nothing to a client for this long. */
    keepAliveIntervalMs: Type.Integer({ minimum: 10, default: 15_000 }),
    /** A client that sends nothing (not even its own pings) for this long is dropped. */
    clientTimeoutMs: Type.Integer({ minimum: 20, default: 30_000 }),
    /** A client must complete the handshake within this time; a negotiated but unused id expires after `clientTimeoutMs`. */
    handshakeTimeoutMs: Type.Integer({ minimum: 10, default: 15_000 }),
    /** Largest WebSocket message and largest hub message (partial records buffered across frames) a client may send. */
    maxMessageBytes: Type.Integer({ minimum: 1024, maximum: 16_777_216, default: 65_536 }),
    /** While the socket holds more than this many unsent bytes (`ws` bufferedAmount), frames wait in the outbox. */
    socketHighWaterBytes: Type.Integer({ minimum: 1024, default: 65_536 }),
    /**
     * While events keep coming, each client's waiting records are written at most once per this many
     * milliseconds, as one frame (less often with many clients: the pause after a flush is four times
     * what the flush took, up to 50 ms); the first record after a quiet spell goes out at once.
     */
    flushIntervalMs: Type.Integer({ minimum: 0, maximum: 1000, default: 10 }),
    /** A client whose outbox grows past this many bytes is closed. */
    maxQueuedBytes: Type.Integer({ minimum: 1024, default: 1_048_576 }),
    /** A client whose outbox grows past this many messages is closed. */
    maxQueuedMessages: Type.Integer({ minimum: 10, default: 10_000 }),
    /** After a Close message, how long a client has to close its side before the socket is cut. */
    closeGraceMs: Type.Integer({ minimum: 10, default: 5_000 }),
    /** At most one ScanProgress per scan is forwarded per interval (the latest wins; 100 % always goes out). 0: no limit. */
    progressMinIntervalMs: Type.Integer({ minimum: 0, default: 100 }),
    /** Connections (open and negotiated) one gateway accepts; more are refused with 503. */
    maxConnections: Type.Integer({ minimum: 1, default: 10_000 }),
    /** Connections (open and negotiated) one user holds at most, so that no user can take every place; more are refused with 429. */
    maxConnectionsPerUser: Type.Integer({ minimum: 1, default: 20 }),
    /** SubscribeScan calls one connection may hold at once. */
    maxSubscriptions: Type.Integer({ minimum: 1, default: 100 }),
    /** How often a connection's bearer token is checked again (revoked or expired tokens end the connection). */
    authRecheckIntervalMs: Type.Integer({ minimum: 100, default: 60_000 }),
  },
  { additionalProperties: false },
);

export type HubConfig = Static<typeof HUB_CONFIG_SCHEMA>;
