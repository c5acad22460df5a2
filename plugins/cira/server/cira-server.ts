/**
 * The CIRA server: a listener whose every connection becomes an APF tunnel (TLS in the gateway, or
 * plain APF behind HAProxy: `listener-plan.ts`), the tunnel registry, device authentication against
 * the MPS accounts, and the `cira` service over them.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from '../../../core/plugin-api.js';
import type { AccountStore } from '../accounts/account-store.js';
import type { CiraService, CiraTunnelEvent } from '../api.js';
import type { CiraConfig } from '../config.js';
import { CiraChannelError } from '../errors.js';
import { ApfTunnel, type TunnelHost, type TunnelLimits } from '../tunnel/apf-tunnel.js';
import { TunnelRegistry } from '../tunnel/tunnel-registry.js';
import type { TunnelPeer, TunnelSocket } from '../tunnel/tunnel-socket.js';
import { createAuthThrottle } from './auth-throttle.js';
import { createCiraListener } from './cira-listener.js';
import { planListener, type ListenerPlan } from './listener-plan.js';
import type { ServerCertificate } from './server-certificate.js';

const CLOSE_GRACE_MS = 500;

export interface CiraServerOptions {
  config: CiraConfig;
  /** The main listener's host: where the TLS listener binds when `config.host` is null. */
  host: string;
  certificate: ServerCertificate;
  accounts: AccountStore;
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
  /** Behind HAProxy: connections refused for want of a valid PROXY v2 header. */
  proxyHeaderErrors: number;
}

export interface CiraServer {
  readonly service: CiraService;
  /** Which listener runs, and where. */
  readonly plan: ListenerPlan;
  listen(): Promise<void>;
  stats(): CiraServerStats;
  close(): Promise<void>;
}

export function createCiraServer(options: CiraServerOptions): CiraServer {
  const { config, accounts, logger, certificate } = options;
  const stats = { authFailures: 0, protocolErrors: 0, ignoredMessages: 0, tlsErrors: 0, proxyHeaderErrors: 0 };
  const plan = planListener(config, options.host);
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const throttle = createAuthThrottle(config.authThrottle);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const registry = new TunnelRegistry(
    { authTimeoutSeconds: config.authTimeoutSeconds, keepAliveTimeoutSeconds: config.keepAliveTimeoutSeconds, sweepIntervalMs: options.sweepIntervalMs ?? 1000 },
    {
      announce(event: CiraTunnelEvent) {
        const { deviceId, uuid, remoteAddress } = event.connection;
        if (event.type === 'up') logger.info('cira tunnel up', { deviceId, uuid, remoteAddress });
        else logger.info('cira tunnel down', { deviceId, uuid, remoteAddress, reason: event.reason });
        emitter.emit('tunnel', event);
      },
      resolverFailed(tunnel, err) {
        logger.error('cira device resolver failed; tunnel closed', { uuid: tunnel.uuid, remoteAddress: tunnel.remoteAddress, error: err instanceof Error ? err.message : String(err) });
      },
    },
  );

  const limits: TunnelLimits = config;
  const host: TunnelHost = {
    limits,
    async authenticate(username, password, remoteAddress) {
      const delay = throttle.delayMs(remoteAddress);
      if (delay > 0) await sleep(delay);
      const ok = accounts.verify(username, password);
      if (ok) throttle.succeeded(remoteAddress);
      else {
        throttle.failed(remoteAddress);
        stats.authFailures++;
        logger.warn('cira device sign-in refused', { username, remoteAddress, delayedMs: delay });
      }
      return ok;
    },
    settled: (tunnel) => registry.settled(tunnel),
    ended: (tunnel, reason) => registry.ended(tunnel, reason),
    noted(tunnel, event, detail) {
      const fields = { event, detail, uuid: tunnel.uuid || null, remoteAddress: tunnel.remoteAddress };
      if (event === 'unknown-channel') {
        stats.ignoredMessages++;
        logger.debug('cira message ignored', fields);
      } else {
        stats.protocolErrors++;
        logger.warn('cira protocol error; tunnel closed', fields);
      }
    },
  };

  let closing = false;
  const accepted = (socket: TunnelSocket, peer: TunnelPeer) => {
    if (closing) return void socket.destroy();
    registry.added(new ApfTunnel(socket, host, peer));
  };
  const listener = createCiraListener({ plan, config, certificate, logger, counters: stats, accepted });

  const service: CiraService = {
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
    address: () => listener.address(),
    certificate: () => ({ pem: certificate.cert, sha256: certificate.sha256 }),
  };

  return {
    service,
    plan,
    listen: () => listener.listen(plan.target),
    stats: () => ({ tunnels: registry.all.size, live: [...registry.liveTunnels()].length, ...stats }),
    async close() {
      closing = true;
      const closed = listener.close();
      registry.close();
      // Tunnels got a DISCONNECT; whatever is still open a moment later (handshakes, deaf peers) is cut.
      const cut = setTimeout(() => listener.cutAll(), CLOSE_GRACE_MS);
      await closed;
      clearTimeout(cut);
    },
  };
}
