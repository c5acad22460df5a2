/**
 * Public types of the `cira` plugin: the `cira` service other plugins (and the integration) use to
 * reach devices through their tunnels, and the tunnel events it publishes. See INTERFACE.md.
 */
import type { Duplex } from 'node:stream';
import type { CiraCertificate, CiraConnection, TunnelIdentity, TunnelTrust } from './routes/cira-schemas.js';

export type { CiraCertificate, CiraConnection, MpsAccount, TunnelIdentity, TunnelTrust, UuidBinding } from './routes/cira-schemas.js';

/** What the device resolver learns of a tunnel that authenticated. */
export interface CiraIdentity {
  uuid: string;
  remoteAddress: string;
  remotePort: number;
  username: string;
  /** How the UUID's bound account's tunnels were trusted before (null: not yet). */
  trust: TunnelTrust | null;
}

/** What the device resolver decides: the device id, and whether the tunnel is known to be that device. */
export interface ResolvedTunnel {
  deviceId: string;
  identity: TunnelIdentity;
}

export type CiraDownReason = 'closed' | 'keepalive-timeout' | 'dropped' | 'replaced' | 'protocol-error' | 'shutdown';

/**
 * `up`: a tunnel known to be its device (at once, or when it proved it or was accepted); `unverified`:
 * a tunnel that must prove it is its device first (not up: no presence, no device I/O); `down`: an
 * `up` tunnel ended.
 */
export type CiraTunnelEvent =
  | { type: 'up'; connection: CiraConnection }
  | { type: 'unverified'; connection: CiraConnection }
  | { type: 'down'; connection: CiraConnection; reason: CiraDownReason };

/** `CiraTunnelUp` on the bus: the tunnel, and the address the device dialed (`publicAddress`, else the listener's). */
export type CiraTunnelUpEvent = CiraConnection & { mpsAddress: string };

/** `CiraTunnelDown` on the bus. */
export type CiraTunnelDownEvent = CiraTunnelUpEvent & { reason: CiraDownReason };

export interface OpenChannelOptions {
  /** Default: the plugin's `channelOpenTimeoutMs`. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The receive window given to the device for this channel; default the plugin's `channelWindowBytes`. */
  windowBytes?: number;
}

/** The `cira` service. */
export interface CiraService {
  /** Opens a `forwarded-tcpip` channel to `port` of the device's live tunnel; rejects with a coded error. */
  openChannel(deviceId: string, port: number, options?: OpenChannelOptions): Promise<Duplex>;
  connections(): ReadonlyArray<Readonly<CiraConnection>>;
  connection(deviceId: string): Readonly<CiraConnection> | undefined;
  /** Closes the device's tunnel; false when it has none. */
  drop(deviceId: string): boolean;
  /** Subscribes to tunnel up/down; returns the unsubscribe function. */
  onTunnel(listener: (event: CiraTunnelEvent) => void): () => void;
  /**
   * Decides the device id of an authenticated tunnel before it is announced, and whether it is known
   * to be that device; default: its UUID, trusted as bound. A plain id means `bound`.
   */
  setDeviceResolver(resolve: (identity: CiraIdentity) => Promise<string | ResolvedTunnel>): void;
  /**
   * Marks the device's unverified tunnel as its device (`proven` by its certificate, or `accepted` by
   * an operator), remembers it for the UUID's bound account, and announces it up.
   * @returns the tunnel, or undefined when the device has no live tunnel.
   */
  verify(deviceId: string, how: 'proven' | 'accepted'): Promise<Readonly<CiraConnection> | undefined>;
  /** The CIRA listener's address once listening. */
  address(): { host: string; port: number } | null;
  certificate(): CiraCertificate;
  /**
   * Where devices dial in, as a provisioning server writes it into them: the address (the configured
   * `publicAddress`, else the listener's), its port, and the server certificate they must trust.
   * Null until the listener listens.
   */
  dialIn(): CiraDialIn | null;
  /**
   * A new MPS account for the one device with `uuid`, which the caller writes into the device (see
   * accounts/device-accounts.ts): generated user name and password (returned once, here), the account
   * limited to the UUID and the UUID bound to it, its tunnels trusted as `provisioned`.
   */
  provisionAccount(uuid: string): Promise<{ username: string; password: string }>;
  /** Deletes the account provisioned for the device (when it is deactivated); false when it had none of its own. */
  releaseAccount(uuid: string): Promise<boolean>;
}

/** The tunnels' part of the service (the CIRA server's own). */
export type CiraTunnelService = Omit<CiraService, 'dialIn' | 'provisionAccount' | 'releaseAccount'>;

/** What a device needs to dial in (see {@link CiraService.dialIn}). */
export interface CiraDialIn {
  /** A DNS name or an IP address, without the port. */
  host: string;
  port: number;
  certificatePem: string;
}

/** Codes of `openChannel` failures (`err.code`). */
export type CiraChannelErrorCode =
  | 'GW_ERR_CIRA_NOT_CONNECTED'
  | 'GW_ERR_CIRA_PORT_NOT_FORWARDED'
  | 'GW_ERR_CIRA_CHANNEL_LIMIT'
  | 'GW_ERR_CIRA_OPEN_FAILED'
  | 'GW_ERR_CIRA_OPEN_TIMEOUT'
  | 'GW_ERR_CIRA_TUNNEL_CLOSED'
  | 'GW_ERR_CIRA_ABORTED';

declare module '../../core/plugin-api.js' {
  interface GatewayServices {
    cira: CiraService;
  }
  interface GatewayEvents {
    CiraTunnelUp: CiraTunnelUpEvent;
    CiraTunnelDown: CiraTunnelDownEvent;
  }
}
