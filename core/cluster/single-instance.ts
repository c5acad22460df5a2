/** What `ctx.cluster` is on a one-box site (LevelDB): one instance alone; and what both kinds share. */
import { hostname } from 'node:os';
import type { GatewayConfig } from '../config/gateway-config.js';
import type { PluginCluster } from './cluster-api.js';
import type { Forwarder } from './forwarder.js';
import type { UpgradeForwarder } from './upgrade-forwarder.js';
import { createLoginThrottle, inMemory, type LoginThrottleOptions, type SharedLoginThrottle } from '../auth/login-throttle.js';

export interface RunningCluster {
  readonly cluster: PluginCluster;
  /** Consulted by the route table before each handler; undefined on a one-box site. */
  readonly forwarder: Forwarder | undefined;
  /** Consulted before each upgrade's handler; undefined on a one-box site. */
  readonly upgrades: UpgradeForwarder | undefined;
  /** The sign-in throttle of `scope` under these limits: this instance's memory, or the cluster's database, where every instance's attempts count together. */
  loginThrottle(scope: string, options: LoginThrottleOptions): SharedLoginThrottle;
  /** Bus events of these names published here reach the other instances without loss (through the store's change log); alone, nothing. */
  shareDurably(names: string[]): void;
  /** The main listener's URL, known once it listens (the advertised URL wins). */
  listening(url: string): Promise<void>;
  close(): Promise<void>;
}

/** The instance's name: `cluster.instanceName`, else host name and port. */
export const instanceName = (config: GatewayConfig): string => config.cluster?.instanceName ?? `${hostname()}:${config.server.port}`;

/** One instance alone: what `ctx.cluster` is on a LevelDB site; `id` is new at each start (what an earlier process left is not up). */
export function singleInstance(name: string, id: string): RunningCluster {
  const turns = new Map<string, Promise<unknown>>();
  const cluster: PluginCluster = {
    enabled: false,
    self: { id, name },
    instances: async () => [],
    isUp: (other) => other === id,
    upInstances: () => [id],
    ownerOf: () => id,
    onInstanceDown: () => undefined,
    async exclusive(key, work) {
      const before = turns.get(key) ?? Promise.resolve();
      const run = before.then(work, work);
      const settled = run.catch(() => undefined);
      turns.set(key, settled);
      void settled.then(() => turns.get(key) === settled && turns.delete(key));
      return run;
    },
    catchUp: async () => undefined,
    next: async () => {
      throw new Error('cluster counters exist only with the PostgreSQL store');
    },
    shareEvents: () => undefined,
    isRemote: () => false,
    routeRequests: () => undefined,
    routeUpgrades: () => undefined,
    reportTunnels: () => undefined,
  };
  return { cluster, forwarder: undefined, upgrades: undefined, loginThrottle: (_scope, options) => inMemory(createLoginThrottle(options)), shareDurably: () => undefined, listening: async () => undefined, close: async () => undefined };
}

