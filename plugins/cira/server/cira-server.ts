/**
 * The CIRA server: a listener whose every connection becomes an APF tunnel (TLS in the gateway, or
 * plain APF behind HAProxy: `listener-plan.ts`), the tunnel registry, device authentication against
 * the MPS accounts, and the `cira` service over them.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from '../../../core/plugin-api.js';
import type { AccountStore } from '../accounts/account-store.js';
import type { BindingStore } from '../identity/uuid-bindings.js';
import { admitTunnel } from './tunnel-admission.js';
import type { CiraTunnelEvent, CiraTunnelService } from '../api.js';
import type { CiraConfig } from '../config.js';
import { CiraChannelError } from '../errors.js';
import { ApfTunnel, type TunnelHost, type TunnelLimits } from '../tunnel/apf-tunnel.js';
import { TunnelRegistry } from '../tunnel/tunnel-registry.js';
import type { TunnelPeer, TunnelSocket } from '../tunnel/tunnel-socket.js';
import { createConnectionAdmission } from './admission.js';
import { createCiraListener } from './cira-listener.js';
import { planListener, type ListenerPlan } from './listener-plan.js';
import { resolveGroup } from './socket-group.js';
import { createLogDigest } from '../../../core/log/log-digest.js';
import { createSignIn } from './sign-in.js';
import type { ServerCertificate } from './server-certificate.js';

const CLOSE_GRACE_MS = 500;

export interface CiraServerOptions {
  config: CiraConfig;
  /** The main listener's host: where the TLS listener binds when `config.host` is null. */
  host: string;
  certificate: ServerCertificate;
  accounts: AccountStore;
  /** Which MPS account each device UUID is bound to. */
  bindings: BindingStore;
  logger: Logger;
  /** How often deadlines are checked; default 1000 ms. */
  sweepIntervalMs?: number;
}

/** Counts of what went wrong, for logs and benchmarks. */
export interface CiraServerStats {
  tunnels: number;
  live: number;
  authFailures: number;
  protocolErrors: number;
  ignoredMessages: number;
  /** Connections refused before a TLS session (not TLS, failed or slow handshake) and TLS errors after it. */
  tlsErrors: number;
  /** Tunnels refused for claiming a UUID their MPS account may not bring (bound to another, or not in its list). */
  refusedClaims: number;
  /** Behind HAProxy: connections refused for want of a valid PROXY v2 header. */
  proxyHeaderErrors: number;
  /** Connections closed at accept: too many not signed in yet, in total or from their address. */
  refusedConnections: number;
  /** Sign-ins refused unchecked: too many of their address waiting already. */
  throttledSignIns: number;
  /** Connections not signed in yet, and the APF bytes all tunnels hold unparsed. */
  unauthenticated: number;
  bufferedBytes: number;
  /** The most APF bytes one tunnel held unparsed between two reads, since start. */
  bufferedBytesPeak: number;
}

export interface CiraServer {
  readonly service: CiraTunnelService;
  /** Which listener runs, and where. */
  readonly plan: ListenerPlan;
  listen(): Promise<void>;
  stats(): CiraServerStats;
  close(): Promise<void>;
}

export function createCiraServer(options: CiraServerOptions): CiraServer {
  const { config, accounts, logger, certificate } = options;
  const stats = { authFailures: 0, protocolErrors: 0, ignoredMessages: 0, tlsErrors: 0, refusedClaims: 0, proxyHeaderErrors: 0, refusedConnections: 0, throttledSignIns: 0 };
  let endedPeak = 0;
  const plan = planListener(config, options.host);
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const logIntervalMs = config.logIntervalSeconds * 1000;
  const signIn = createSignIn({ accounts, logger, throttle: config.authThrottle, logIntervalMs, stats });
  const admission = createConnectionAdmission({ maxUnauthenticated: config.preAuth.maxConnections, maxUnauthenticatedPerAddress: config.preAuth.maxConnectionsPerAddress, logger, logIntervalMs, stats });
  const preAuthErrorLog = createLogDigest({ logger, message: 'cira protocol error before sign-in; connection closed', summary: 'cira protocol errors before sign-in (summary)', intervalMs: logIntervalMs });

  const registry = new TunnelRegistry(
    { authTimeoutSeconds: config.authTimeoutSeconds, keepAliveTimeoutSeconds: config.keepAliveTimeoutSeconds, sweepIntervalMs: options.sweepIntervalMs ?? 1000 },
    {
      announce(event: CiraTunnelEvent) {
        const { deviceId, uuid, remoteAddress } = event.connection;
        if (event.type === 'up') logger.info('cira tunnel up', { deviceId, uuid, remoteAddress });
        else if (event.type === 'down') logger.info('cira tunnel down', { deviceId, uuid, remoteAddress, reason: event.reason });
        else logger.warn('cira tunnel unverified: the device is known from the LAN and the tunnel has yet to prove it is that device', { deviceId, uuid, remoteAddress, username: event.connection.username });
        emitter.emit('tunnel', event);
      },
      async admit(tunnel) {
        const admission = await admitTunnel(accounts, options.bindings, tunnel.uuid, tunnel.username);
        if ('refused' in admission) {
          stats.refusedClaims++;
          logger.warn('cira tunnel refused: its MPS account may not bring this UUID', { uuid: tunnel.uuid, username: tunnel.username, remoteAddress: tunnel.remoteAddress, reason: admission.refused });
        }
        return admission;
      },
      async trusted(tunnel, trust) {
        const account = accounts.find(tunnel.username);
        if (account) await options.bindings.trust(tunnel.uuid, account.id, trust);
      },
      resolverFailed(tunnel, err) {
        logger.error('cira device resolver failed; tunnel closed', { uuid: tunnel.uuid, remoteAddress: tunnel.remoteAddress, error: err instanceof Error ? err.message : String(err) });
      },
    },
  );

  const limits: TunnelLimits = config;
  const host: TunnelHost = {
    limits,
    authenticate: (username, password, remoteAddress) => signIn.authenticate(username, password, remoteAddress),
    settled: (tunnel) => registry.settled(tunnel),
    ended(tunnel, reason) {
      endedPeak = Math.max(endedPeak, tunnel.peakBufferedBytes);
      registry.ended(tunnel, reason);
    },
    noted(tunnel, event, detail) {
      const fields = { event, detail, uuid: tunnel.uuid || null, remoteAddress: tunnel.remoteAddress };
      if (event === 'unknown-channel') {
        stats.ignoredMessages++;
        logger.debug('cira message ignored', fields);
      } else {
        stats.protocolErrors++;
        if (tunnel.authenticated) logger.warn('cira protocol error; tunnel closed', fields);
        else preAuthErrorLog.note(tunnel.remoteAddress, fields);
      }
    },
  };

  let closing = false;
  const accepted = (socket: TunnelSocket, peer: TunnelPeer) => {
    if (closing) return void socket.destroy();
    registry.added(new ApfTunnel(socket, host, peer));
  };
  const listener = createCiraListener({ plan, config, certificate, logger, counters: stats, admit: (raw, address) => admission.admit(raw, address), accepted });

  const service: CiraTunnelService = {
    async openChannel(deviceId, port, openOptions) {
      const tunnel = registry.get(deviceId);
      if (!tunnel) throw new CiraChannelError('GW_ERR_CIRA_NOT_CONNECTED', `device '${deviceId}' has no live CIRA tunnel`);
      return tunnel.openChannel(port, openOptions);
    },
    connections: () => [...registry.liveTunnels()].map((t) => t.view()),
    connection: (deviceId) => registry.get(deviceId)?.view(),
    drop(deviceId) {
      const tunnel = registry.get(deviceId);
      if (!tunnel) return false;
      tunnel.end('dropped');
      return true;
    },
    onTunnel(listener) {
      emitter.on('tunnel', listener);
      return () => emitter.off('tunnel', listener);
    },
    setDeviceResolver: (resolve) => registry.setResolver(resolve),
    verify: async (deviceId, how) => (await registry.verify(deviceId, how))?.view(),
    address: () => listener.address(),
    certificate: () => ({ pem: certificate.cert, sha256: certificate.sha256 }),
  };

  return {
    service,
    plan,
    listen: async () => {
      const { target } = plan;
      const group = plan.kind === 'proxy-v2' && 'group' in plan.admission ? plan.admission.group : null;
      await listener.listen(group !== null && 'path' in target ? { ...target, gid: resolveGroup(group) } : target);
    },
    stats: () => ({
      tunnels: registry.all.size,
      live: [...registry.liveTunnels()].length,
      ...stats,
      unauthenticated: admission.unauthenticated,
      bufferedBytes: [...registry.all].reduce((sum, tunnel) => sum + tunnel.bufferedBytes, 0),
      bufferedBytesPeak: [...registry.all].reduce((peak, tunnel) => Math.max(peak, tunnel.peakBufferedBytes), endedPeak),
    }),
    async close() {
      closing = true;
      for (const digest of [signIn, admission, preAuthErrorLog]) digest.close();
      const closed = listener.close();
      registry.close();
      // Tunnels got a DISCONNECT; whatever is still open a moment later (handshakes, deaf peers) is cut.
      const cut = setTimeout(() => listener.cutAll(), CLOSE_GRACE_MS);
      // Device lookups of tunnels that were signing in write to the store: done before it closes.
      await Promise.all([closed, registry.drained()]);
      clearTimeout(cut);
    },
  };
}
