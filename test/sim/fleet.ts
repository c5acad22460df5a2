/**
 * A fleet of simulated AMT devices in one process, each on its own loopback address. Used in-process
 * by tests (`startFleet`) and standalone by the demo (`cli.ts`).
 */
import { deviceConfigs, type FleetOptions } from './fleet-options.js';
import { fleetManifest, type FleetManifest } from './manifest.js';
import { SimDevice } from './sim-device.js';

export interface Fleet {
  readonly devices: readonly SimDevice[];
  /** The device on `address`, if any. */
  device(address: string): SimDevice | undefined;
  /** A fresh manifest (power states and hostnames as they are now). */
  manifest(): FleetManifest;
  /** Closes every listener. */
  stop(): Promise<void>;
}

async function inBatches<T>(items: readonly T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    await Promise.all(items.slice(i, i + size).map(run));
  }
}

/**
 * Starts `options.count` devices, binding their listeners concurrently. Rejects (after closing what
 * was opened) when an address or port cannot be bound.
 */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const startedAt = new Date();
  const t0 = performance.now();
  const seed = options.seed ?? 1;
  const devices = deviceConfigs(options).map((config) => new SimDevice(config, seed));
  const byAddress = new Map(devices.map((d) => [d.address, d]));
  try {
    await inBatches(devices, Math.max(1, options.bindConcurrency ?? 200), (d) => d.start());
  } catch (error) {
    await inBatches(devices, 200, (d) => d.stop());
    throw error;
  }
  const startupMs = Math.round(performance.now() - t0);
  const rmcp = options.rmcpPort ?? 623;
  const ports = { http: options.httpPort ?? 16992, https: options.httpsPort ?? 16993, rmcp: rmcp > 0 ? rmcp : null };
  return {
    devices,
    device: (address) => byAddress.get(address),
    manifest: () => fleetManifest(devices, ports, startedAt, startupMs),
    stop: () => inBatches(devices, 200, (d) => d.stop()),
  };
}
