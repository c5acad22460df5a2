import type { JsonSchema } from '../../core/plugin-api.js';

/** Options of the `scan-hub` plugin (site config `plugins.scan-hub.options`), defaults applied. */
export interface HubConfig {
  /** The server sends a Ping when it has sent nothing to a client for this long. */
  keepAliveIntervalMs: number;
  /** A client that sends nothing (not even its own pings) for this long is dropped. */
  clientTimeoutMs: number;
  /** A client must complete the handshake within this time; a negotiated but unused id expires after `clientTimeoutMs`. */
  handshakeTimeoutMs: number;
  /** Largest WebSocket message and largest hub message (partial records buffered across frames) a client may send. */
  maxMessageBytes: number;
  /** While the socket holds more than this many unsent bytes (`ws` bufferedAmount), frames wait in the outbox. */
  socketHighWaterBytes: number;
  /**
   * While events keep coming, each client's waiting records are written at most once per this many
   * milliseconds, as one frame (less often with many clients: the pause after a flush is four times
   * what the flush took, up to 50 ms); the first record after a quiet spell goes out at once.
   */
  flushIntervalMs: number;
  /** A client whose outbox grows past this many bytes is closed. */
  maxQueuedBytes: number;
  /** A client whose outbox grows past this many messages is closed. */
  maxQueuedMessages: number;
  /** After a Close message, how long a client has to close its side before the socket is cut. */
  closeGraceMs: number;
  /** At most one ScanProgress per scan is forwarded per interval (the latest wins; 100 % always goes out). 0: no limit. */
  progressMinIntervalMs: number;
  /** Connections (open and negotiated) one gateway accepts; more are refused with 503. */
  maxConnections: number;
  /** SubscribeScan calls one connection may hold at once. */
  maxSubscriptions: number;
  /** How often a connection's bearer token is checked again (revoked or expired tokens end the connection). */
  authRecheckIntervalMs: number;
}

/** JSON Schema of {@link HubConfig}; the kernel validates the site options against it and applies the defaults. */
export const HUB_CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    keepAliveIntervalMs: { type: 'integer', minimum: 10, default: 15_000 },
    clientTimeoutMs: { type: 'integer', minimum: 20, default: 30_000 },
    handshakeTimeoutMs: { type: 'integer', minimum: 10, default: 15_000 },
    maxMessageBytes: { type: 'integer', minimum: 1024, maximum: 16_777_216, default: 65_536 },
    socketHighWaterBytes: { type: 'integer', minimum: 1024, default: 65_536 },
    flushIntervalMs: { type: 'integer', minimum: 0, maximum: 1000, default: 10 },
    maxQueuedBytes: { type: 'integer', minimum: 1024, default: 1_048_576 },
    maxQueuedMessages: { type: 'integer', minimum: 10, default: 10_000 },
    closeGraceMs: { type: 'integer', minimum: 10, default: 5_000 },
    progressMinIntervalMs: { type: 'integer', minimum: 0, default: 100 },
    maxConnections: { type: 'integer', minimum: 1, default: 10_000 },
    maxSubscriptions: { type: 'integer', minimum: 1, default: 100 },
    authRecheckIntervalMs: { type: 'integer', minimum: 100, default: 60_000 },
  },
};
