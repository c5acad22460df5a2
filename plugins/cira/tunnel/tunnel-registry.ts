/**
 * Every tunnel of the server: the live ones by device id (a second tunnel of the same device
 * replaces the first), up/down announcements, and the one sweep timer that enforces the auth and
 * keep-alive deadlines of all tunnels, so that an idle tunnel costs no timer of its own.
 */
import type { CiraDownReason, CiraIdentity, CiraTunnelEvent, ResolvedTunnel, TunnelTrust } from '../api.js';
import type { ApfTunnel, TunnelEndReason } from './apf-tunnel.js';

export interface RegistryOptions {
  authTimeoutSeconds: number;
  keepAliveTimeoutSeconds: number;
  sweepIntervalMs: number;
}

export type DeviceResolver = (identity: CiraIdentity) => Promise<string | ResolvedTunnel>;

export interface TunnelRegistryEvents {
  announce(event: CiraTunnelEvent): void;
  resolverFailed(tunnel: ApfTunnel, err: unknown): void;
  /**
   * Whether the tunnel's account may bring its UUID (the UUID's binding and the account's UUID list):
   * the binding's trust, or why not. A refused tunnel ends before it is resolved, and any tunnel the
   * device has stays.
   */
  admit(tunnel: ApfTunnel): Promise<{ trust: TunnelTrust | null } | { refused: string }>;
  /** The tunnel is known to be its device: remembered for the UUID's bound account. */
  trusted(tunnel: ApfTunnel, trust: TunnelTrust): Promise<void>;
}

export class TunnelRegistry {
  readonly all = new Set<ApfTunnel>();
  private readonly live = new Map<string, ApfTunnel>();
  private readonly sweeper: NodeJS.Timeout;
  private resolver: DeviceResolver = async (identity) => identity.uuid;
  /** Admissions and resolutions under way: they write to the store, so shutdown waits for them. */
  private readonly settling = new Set<Promise<void>>();
  private closing = false;

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

  /** The tunnel authenticated and its forwards settled: admit it, resolve its device and announce it. */
  settled(tunnel: ApfTunnel): void {
    // Shutting down: nothing new is written for a tunnel that is about to end.
    if (this.closing) return tunnel.end('shutdown');
    const settling: Promise<void> = this.admitAndResolve(tunnel).then(
      (resolved) => {
        if (!resolved || tunnel.closed) return;
        const { deviceId, identity } = resolved;
        tunnel.deviceId = deviceId;
        tunnel.identity = identity;
        const replaced = this.live.get(deviceId);
        // A tunnel that is up, replaced by one not known to be the device, is down for the device.
        if (replaced) replaced.end(replaced.announced && identity === 'unverified' ? 'dropped' : 'replaced');
        this.live.set(deviceId, tunnel);
        this.announce(tunnel);
      },
      (err) => {
        this.events.resolverFailed(tunnel, err);
        tunnel.end('protocol-error');
      },
    );
    this.settling.add(settling);
    void settling.finally(() => this.settling.delete(settling));
  }

  private async admitAndResolve(tunnel: ApfTunnel): Promise<ResolvedTunnel | null> {
    const admission = await this.events.admit(tunnel);
    if ('refused' in admission) {
      tunnel.end('refused');
      return null;
    }
    if (tunnel.closed) return null;
    const identity = { uuid: tunnel.uuid, remoteAddress: tunnel.remoteAddress, remotePort: tunnel.remotePort, username: tunnel.username, trust: admission.trust };
    const answer = await this.resolver(identity);
    const resolved: ResolvedTunnel = typeof answer === 'string' ? { deviceId: answer, identity: admission.trust ?? 'bound' } : answer;
    if (resolved.identity !== 'unverified' && resolved.identity !== admission.trust) await this.events.trusted(tunnel, resolved.identity);
    return resolved;
  }

  private announce(tunnel: ApfTunnel): void {
    if (tunnel.identity === 'unverified') return this.events.announce({ type: 'unverified', connection: tunnel.view() });
    tunnel.announced = true;
    this.events.announce({ type: 'up', connection: tunnel.view() });
  }

  /** The device's unverified tunnel proved it is the device, or an operator accepted it: remembered, then up. */
  async verify(deviceId: string, how: 'proven' | 'accepted'): Promise<ApfTunnel | undefined> {
    const tunnel = this.live.get(deviceId);
    if (!tunnel || tunnel.identity !== 'unverified') return tunnel;
    await this.events.trusted(tunnel, how);
    if (this.live.get(deviceId) !== tunnel || tunnel.identity !== 'unverified') return tunnel;
    tunnel.identity = how;
    this.announce(tunnel);
    return tunnel;
  }

  ended(tunnel: ApfTunnel, reason: TunnelEndReason): void {
    this.all.delete(tunnel);
    const id = tunnel.deviceId;
    if (id === null || this.live.get(id) !== tunnel) return;
    this.live.delete(id);
    if (!tunnel.announced) return;
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

  /**
   * Ends every tunnel (shutdown) and stops the sweep. The admissions and resolutions under way go on
   * (their writes land while the store is open) and announce nothing: await `drained()`.
   */
  close(): void {
    this.closing = true;
    clearInterval(this.sweeper);
    for (const tunnel of [...this.all]) tunnel.end('shutdown');
  }

  /** Resolves once the admissions and resolutions under way have settled. */
  async drained(): Promise<void> {
    while (this.settling.size > 0) await Promise.allSettled([...this.settling]);
  }
}
