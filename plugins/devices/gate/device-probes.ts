/**
 * `deviceGate.probe`: the probes of many addresses at once (a scan's `probe-batch`, the online
 * monitor's `presence-sweep`) in the worker pool, each address only within its turn of the turn table
 * the gate's operations share (workers/amt/turn-table.ts), on the site's ports, inside the allowed networks.
 * Where a turn provider reaches beyond this gateway (a cluster), a scan's addresses of devices the
 * registry knows take the device's whole turn, the provider's included (known-device-probes.ts).
 */
import type { WorkerPool } from '../../../core/plugin-api.js';
import type { TurnTable } from '../../../workers/amt/turn-table.js';
import type { DeviceGate, DeviceSettings, DeviceTurnProvider, ProbeOptions, ProbeTasks } from '../api.js';
import type { NetworkGuard } from './device-networks.js';
import type { DeviceTurns } from './device-turns.js';
import { probeWithKnownDevices } from './known-device-probes.js';

type Input<K extends keyof ProbeTasks> = ProbeTasks[K]['input'];
type Options<K extends keyof ProbeTasks> = ProbeOptions<ProbeTasks[K]['progress']> | undefined;

/** What a scan's probes need beyond this gateway's turn table, in a cluster. */
export interface ProbeTurnsBeyond {
  turns: DeviceTurns;
  /** The registered turn provider now, if any. */
  provider(): DeviceTurnProvider | undefined;
  /** Whether the registry knows a device at this address (the one address a device's LAN turn is keyed by). */
  known(address: string): boolean;
}

export function createDeviceProbes(pool: WorkerPool, table: TurnTable, settings: DeviceSettings, networks: NetworkGuard, beyond: ProbeTurnsBeyond): DeviceGate['probe'] {
  const inTable = (input: Input<'probe-batch'>, options: Options<'probe-batch'>) =>
    pool.run('probe-batch', { ...input, ports: { ...settings.ports }, turns: table.memory }, { ...(options?.cancel ? { cancel: options.cancel } : {}), ...(options?.onProgress ? { onProgress: options.onProgress } : {}) });
  const batch = (input: Input<'probe-batch'>, options: Options<'probe-batch'>) => {
    for (const address of input.addresses) networks.check(address);
    // Without a provider only this gateway's connections can meet at a device: the turn table keeps them apart.
    const known = beyond.provider() ? new Set(input.addresses.filter((address) => beyond.known(address))) : undefined;
    if (!known?.size) return inTable(input, options);
    return probeWithKnownDevices(pool, beyond.turns, { ...input, ports: { ...settings.ports } }, known, inTable, options);
  };
  const sweep = (input: Input<'presence-sweep'>, options: Options<'presence-sweep'>) => {
    for (const target of input.targets) networks.check(target.address);
    return pool.run('presence-sweep', { ...input, rmcpPort: settings.ports.rmcp, turns: table.memory }, options?.cancel ? { cancel: options.cancel } : {});
  };
  // One dispatch: the task's name picks its input and output types.
  return ((task: keyof ProbeTasks, input: Input<keyof ProbeTasks>, options: Options<keyof ProbeTasks>) =>
    task === 'probe-batch' ? batch(input as Input<'probe-batch'>, options as Options<'probe-batch'>) : sweep(input as Input<'presence-sweep'>, options)) as DeviceGate['probe'];
}
