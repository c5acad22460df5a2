import type { AuthThrottleOptions } from './server/auth-throttle.js';
/** Options of the cira plugin (`plugins.cira.options`, CONTRACT section 12). */
export interface CiraConfig {
  /** TLS port devices dial (AMTGW_CIRA_PORT). */
  port: number;
  /** Address to bind; null: the main listener's host (with `tls.terminator` "haproxy": 127.0.0.1, and only loopback is allowed). */
  host: string | null;
  /** With `tls.terminator` "haproxy": listen on this unix socket (mode 0660) instead of host and port. */
  socketPath: string | null;
  /**
   * Where devices dial in, as provisioned into them (`host` or `host:port`): the `MpsAddress` of SOAP
   * notifications about CIRA devices. null: the listener's address (the machine's hostname when bound to all addresses).
   */
  publicAddress: string | null;
  tls: {
    /** PEM paths; both or neither. Neither: a self-signed pair in `<dataDir>/cira/`. */
    cert: string | null;
    key: string | null;
    minVersion: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
    /**
     * Who terminates TLS: "gateway" (Node's TLS on `host`:`port`), or "haproxy" (HAProxy in front, with
     * the same certificate, passes plain APF to a loopback or unix-socket listener, each connection
     * opened by a PROXY v2 header with the device's address). `minVersion` applies to "gateway" only.
     */
    terminator: 'gateway' | 'haproxy';
  };
  /** Sent to devices in KEEPALIVE_OPTIONS_REQUEST. */
  keepAliveIntervalSeconds: number;
  /** A tunnel silent for longer is closed (also sent to devices). */
  keepAliveTimeoutSeconds: number;
  /** A device that has not authenticated this long after connecting is dropped. */
  authTimeoutSeconds: number;
  /** Largest APF message accepted; a larger one ends the tunnel. */
  maxMessageBytes: number;
  maxChannelsPerTunnel: number;
  /** The receive window the server gives each channel. */
  channelWindowBytes: number;
  /** The receive window of a channel that carries a remote console session (README, "Channel windows"). */
  sessionChannelWindowBytes: number;
  /** How long `openChannel` waits for the device's confirmation. */
  channelOpenTimeoutMs: number;
  /** Forwards are settled (and the tunnel up) once none arrived for this long, or port 5900 came. */
  forwardSettleMs: number;
  /** Simultaneous connections at most (TLS, or from HAProxy). */
  maxConnections: number;
  /** Bounds before sign-in (README, "Sign-in bounds"). */
  preAuth: {
    /** Largest APF message before sign-in. */
    maxMessageBytes: number;
    /** USERAUTH_REQUESTs per connection (any method); more end the connection. */
    maxAuthRequests: number;
    /** Connections not signed in yet (TLS handshakes included), in total and per address; more are closed at once. */
    maxConnections: number;
    maxConnectionsPerAddress: number;
  };
  /** Forwarded ports per tunnel; more are refused (REQUEST_FAILURE), and as many refusals again end the tunnel. */
  maxForwardsPerTunnel: number;
  /**
   * Failed device sign-ins: per address and user name, `freeFailures`, then each waits `delayStepMs`
   * more, at most `maxDelayMs`; per address (every name), `addressFreeFailures`, then the same steps
   * up to `addressMaxDelayMs`; at most `maxConcurrentPerAddress` waiting at once.
   */
  authThrottle: Omit<AuthThrottleOptions, 'maxAddresses'>;
  /** Refused sign-ins and connections are logged once per address per interval, then as one summary line. */
  logIntervalSeconds: number;
  /** Device operations through tunnels run on the main thread: at most `concurrency` at once, `maxWaiting` queued (more: 503). */
  tunnelOperations: { concurrency: number; maxWaiting: number };
}

export const CIRA_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 4433 },
    host: { type: ['string', 'null'], default: null },
    socketPath: { type: ['string', 'null'], default: null, minLength: 1, maxLength: 100 },
    publicAddress: {
      type: ['string', 'null'],
      default: null,
      maxLength: 261,
      // A DNS name, an IPv4 address or a bracketed IPv6 address, then an optional port.
      pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(:[0-9]{1,5})?$',
      'x-pattern-message': 'must be host or host:port (a DNS name, an IPv4 address or a bracketed IPv6 address)',
    },
    tls: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        cert: { type: ['string', 'null'], default: null },
        key: { type: ['string', 'null'], default: null },
        minVersion: { enum: ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'], default: 'TLSv1.2' },
        terminator: { enum: ['gateway', 'haproxy'], default: 'gateway' },
      },
    },
    keepAliveIntervalSeconds: { type: 'integer', minimum: 1, maximum: 3600, default: 30 },
    keepAliveTimeoutSeconds: { type: 'integer', minimum: 1, maximum: 7200, default: 90 },
    authTimeoutSeconds: { type: 'integer', minimum: 1, maximum: 600, default: 30 },
    maxMessageBytes: { type: 'integer', minimum: 1024, maximum: 16777216, default: 1048576 },
    maxChannelsPerTunnel: { type: 'integer', minimum: 1, maximum: 1024, default: 32 },
    channelWindowBytes: { type: 'integer', minimum: 1024, maximum: 16777216, default: 32768 },
    sessionChannelWindowBytes: { type: 'integer', minimum: 1024, maximum: 16777216, default: 524288 },
    channelOpenTimeoutMs: { type: 'integer', minimum: 100, maximum: 120000, default: 10000 },
    forwardSettleMs: { type: 'integer', minimum: 0, maximum: 10000, default: 250 },
    maxConnections: { type: 'integer', minimum: 1, maximum: 1000000, default: 20000 },
    authThrottle: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        freeFailures: { type: 'integer', minimum: 0, maximum: 1000, default: 3 },
        delayStepMs: { type: 'integer', minimum: 0, maximum: 60000, default: 500 },
        maxDelayMs: { type: 'integer', minimum: 0, maximum: 300000, default: 10000 },
        windowSeconds: { type: 'integer', minimum: 1, maximum: 86400, default: 900 },
        addressFreeFailures: { type: 'integer', minimum: 0, maximum: 100000, default: 20 },
        addressMaxDelayMs: { type: 'integer', minimum: 0, maximum: 300000, default: 2000 },
        maxConcurrentPerAddress: { type: 'integer', minimum: 1, maximum: 10000, default: 8 },
      },
    },
    preAuth: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxMessageBytes: { type: 'integer', minimum: 512, maximum: 65536, default: 4096 },
        maxAuthRequests: { type: 'integer', minimum: 1, maximum: 100, default: 4 },
        maxConnections: { type: 'integer', minimum: 1, maximum: 1000000, default: 1000 },
        maxConnectionsPerAddress: { type: 'integer', minimum: 1, maximum: 1000000, default: 32 },
      },
    },
    maxForwardsPerTunnel: { type: 'integer', minimum: 1, maximum: 1024, default: 16 },
    logIntervalSeconds: { type: 'integer', minimum: 1, maximum: 86400, default: 60 },
    tunnelOperations: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        concurrency: { type: 'integer', minimum: 1, maximum: 1024, default: 4 },
        maxWaiting: { type: 'integer', minimum: 0, maximum: 100000, default: 1000 },
      },
    },
  },
};
