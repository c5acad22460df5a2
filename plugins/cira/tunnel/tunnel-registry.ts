/**
 * Every tunnel of the server: the live ones by device id (a second tunnel of the same device
 * replaces the first), up/down announcements, and the one sweep timer that enforces the auth and
 * keep-alive deadlines of all tunnels, so that an idle tunnel costs no timer of its own.
 */
import type { CiraDownReason, CiraIdentity, CiraTunnelEvent } from '../api.js';
import type { ApfTunnel, TunnelEndReason } from './apf-tunnel.js';

export interface RegistryOptions {
  authTimeoutSeconds: number;
  keepAliveTimeoutSeconds: number;
  sweepIntervalMs: number;
}

export type DeviceResolver = (identity: CiraIdentity) => Promise<string>;

export interface TunnelRegistryEvents {
  announce(event: CiraTunnelEvent): void;
  resolverFailed(tunnel: ApfTunnel, err: unknown): void;
}

export class TunnelRegistry {
  readonly all = new Set<ApfTunnel>();
  private readonly live = new Map<string, ApfTunnel>();
  private readonly sweeper: NodeJS.Timeout;
  private resolver: DeviceResolver = async (identity) => identity.uuid;

  constructor(
    private readonly options: RegistryOptions,
    private readonly events: TunnelRegistryEvents,
  ) {
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs);
    this.sweeper.unref();
  }

  setResolver(resolver: DeviceResolver): void {
    this.resolver = resolver;
  }

  get(deviceId: string): ApfTunnel | undefined {
    return this.live.get(deviceId);
  }

  liveTunnels(): IterableIterator<ApfTunnel> {
    return this.live.values();
  }

  added(tunnel: ApfTunnel): void {
    this.all.add(tunnel);
  }

  /** The tunnel authenticated and its forwards settled: resolve its device and announce it. */
  settled(tunnel: ApfTunnel): void {
    const identity = { uuid: tunnel.uuid, remoteAddress: tunnel.remoteAddress, remotePort: tunnel.remotePort, username: tunnel.username };
    this.resolver(identity).then(
      (deviceId) => {
        if (tunnel.closed) return;
        tunnel.deviceId = deviceId;
        this.live.get(deviceId)?.end('replaced');
        this.live.set(deviceId, tunnel);
        this.events.announce({ type: 'up', connection: tunnel.view() });
      },
      (err) => {
        this.events.resolverFailed(tunnel, err);
        tunnel.end('protocol-error');
      },
    );
  }

  ended(tunnel: ApfTunnel, reason: TunnelEndReason): void {
    this.all.delete(tunnel);
    const id = tunnel.deviceId;
    if (id === null || this.live.get(id) !== tunnel) return;
    this.live.delete(id);
    this.events.announce({ type: 'down', connection: tunnel.view(), reason: reason as CiraDownReason });
  }

  /** Drops tunnels past their auth or keep-alive deadline. */
  sweep(now = Date.now()): void {
    const authLimit = this.options.authTimeoutSeconds * 1000;
    const silenceLimit = this.options.keepAliveTimeoutSeconds * 1000;
    for (const tunnel of this.all) {
      if (!tunnel.authenticated) {
        if (now - tunnel.connectedAt > authLimit) tunnel.end('auth-timeout');
      } else if (now - tunnel.lastSeenAt > silenceLimit) {
        tunnel.end('keepalive-timeout');
      }
    }
  }

  /** Ends every tunnel (shutdown) and stops the sweep. */
  close(): void {
    clearInterval(this.sweeper);
    for (const tunnel of [...this.all]) tunnel.end('shutdown');
  }
}
