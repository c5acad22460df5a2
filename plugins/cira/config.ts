/** Options of the cira plugin (`plugins.cira.options`, CONTRACT section 12); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { NullableString, Section, StringEnum } from '../../core/validation/schema-types.js';

const int = (minimum: number, maximum: number, value: number) => Type.Integer({ minimum, maximum, default: value });

export const CIRA_CONFIG_SCHEMA = Section({
  /** TLS port devices dial (AMTGW_CIRA_PORT). */
  port: int(0, 65535, 4433),
  /** Address to bind; null: the main listener's host (with `tls.terminator` "haproxy": 127.0.0.1, and only loopback is allowed). */
  host: NullableString({ default: null }),
  /** With `tls.terminator` "haproxy": listen on this unix socket (mode 0660) instead of host and port. */
  socketPath: NullableString({ default: null, minLength: 1, maxLength: 100 }),
  /**
   * With `socketPath`: the group (a name from /etc/group, or a numeric gid) the socket file belongs
   * to, HAProxy's, so that only the gateway's user and that group can connect. null: the gateway's own group.
   */
  socketGroup: NullableString({ default: null, pattern: '^([0-9]{1,10}|[A-Za-z_][A-Za-z0-9_.-]{0,31})$' }),
  /**
   * With `tls.terminator` "haproxy" on a port: the addresses HAProxy connects from (its `source` on the
   * server line), CIDRs or single addresses. A connection from any other address is closed before
   * its PROXY header is read. Required for a port (on loopback any local process could connect and
   * claim any device address); a unix socket is limited by its file's owner, group and mode instead.
   */
  proxySources: Type.Array(Type.String({ pattern: '^[0-9A-Fa-f:.]+(/\\d{1,3})?$' }), { maxItems: 64, default: [] }),
  /**
   * Where devices dial in, as provisioned into them (`host` or `host:port`): the `MpsAddress` of SOAP
   * notifications about CIRA devices. null: the listener's address (the machine's hostname when bound to all addresses).
   */
  publicAddress: NullableString({
    default: null,
    maxLength: 261,
    // A DNS name, an IPv4 address or a bracketed IPv6 address, then an optional port.
    pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(:[0-9]{1,5})?$',
    'x-pattern-message': 'must be host or host:port (a DNS name, an IPv4 address or a bracketed IPv6 address)',
  }),
  tls: Section({
    /** PEM paths; both or neither. Neither: a self-signed pair in `<dataDir>/cira/`. */
    cert: NullableString({ default: null }),
    key: NullableString({ default: null }),
    minVersion: StringEnum(['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'], { default: 'TLSv1.2' }),
    /**
     * Who terminates TLS: "gateway" (Node's TLS on `host`:`port`), or "haproxy" (HAProxy in front, with
     * the same certificate, passes plain APF to a loopback or unix-socket listener, each connection
     * opened by a PROXY v2 header with the device's address). `minVersion` applies to "gateway" only.
     */
    terminator: StringEnum(['gateway', 'haproxy'], { default: 'gateway' }),
  }),
  /** Sent to devices in KEEPALIVE_OPTIONS_REQUEST. */
  keepAliveIntervalSeconds: int(1, 3600, 30),
  /** A tunnel silent for longer is closed (also sent to devices). */
  keepAliveTimeoutSeconds: int(1, 7200, 90),
  /** A device that has not authenticated this long after connecting is dropped. */
  authTimeoutSeconds: int(1, 600, 30),
  /** Largest APF message accepted; a larger one ends the tunnel. */
  maxMessageBytes: int(1024, 16777216, 1048576),
  maxChannelsPerTunnel: int(1, 1024, 32),
  /** The receive window the server gives each channel. */
  channelWindowBytes: int(1024, 16777216, 32768),
  /** The receive window of a channel that carries a remote console session (README, "Channel windows"). */
  sessionChannelWindowBytes: int(1024, 16777216, 524288),
  /** How long `openChannel` waits for the device's confirmation. */
  channelOpenTimeoutMs: int(100, 120000, 10000),
  /** Forwards are settled (and the tunnel up) once none arrived for this long, or port 5900 came. */
  forwardSettleMs: int(0, 10000, 250),
  /** Simultaneous connections at most (TLS, or from HAProxy). */
  maxConnections: int(1, 1000000, 20000),
  /**
   * Failed device sign-ins: per address and user name, `freeFailures`, then each waits `delayStepMs`
   * more, at most `maxDelayMs`; per address (every name), `addressFreeFailures`, then the same steps
   * up to `addressMaxDelayMs`; at most `maxConcurrentPerAddress` waiting at once.
   */
  authThrottle: Section({
    freeFailures: int(0, 1000, 3),
    delayStepMs: int(0, 60000, 500),
    maxDelayMs: int(0, 300000, 10000),
    windowSeconds: int(1, 86400, 900),
    addressFreeFailures: int(0, 100000, 20),
    addressMaxDelayMs: int(0, 300000, 2000),
    maxConcurrentPerAddress: int(1, 10000, 8),
  }),
  /** Bounds before sign-in (README, "Sign-in bounds"). */
  preAuth: Section({
    /** Largest APF message before sign-in. */
    maxMessageBytes: int(512, 65536, 4096),
    /** USERAUTH_REQUESTs per connection (any method); more end the connection. */
    maxAuthRequests: int(1, 100, 4),
    /** Connections not signed in yet (TLS handshakes included), in total and per address; more are closed at once. */
    maxConnections: int(1, 1000000, 1000),
    maxConnectionsPerAddress: int(1, 1000000, 32),
  }),
  /** Forwarded ports per tunnel; more are refused (REQUEST_FAILURE), and as many refusals again end the tunnel. */
  maxForwardsPerTunnel: int(1, 1024, 16),
  /** Refused sign-ins and connections are logged once per address per interval, then as one summary line. */
  logIntervalSeconds: int(1, 86400, 60),
  /** Device operations through tunnels run on the main thread: at most `concurrency` at once, `maxWaiting` queued (more: 503). */
  tunnelOperations: Section({
    concurrency: int(1, 1024, 4),
    maxWaiting: int(0, 100000, 1000),
  }),
});

export type CiraConfig = Static<typeof CIRA_CONFIG_SCHEMA>;
