/**
 * `deviceGate.probe`: the probes of many addresses at once (a scan's `probe-batch`, the online
 * monitor's `presence-sweep`) in the worker pool, each address only within its turn of the turn table
 * the gate's operations share (workers/amt/turn-table.ts), on the site's ports, inside the allowed networks.
 */
import type { WorkerPool } from '../../../core/plugin-api.js';
import type { TurnTable } from '../../../workers/amt/turn-table.js';
import type { DeviceGate, DeviceSettings, ProbeOptions, ProbeTasks } from '../api.js';
import type { NetworkGuard } from './device-networks.js';

type Input<K extends keyof ProbeTasks> = ProbeTasks[K]['input'];
type Options<K extends keyof ProbeTasks> = ProbeOptions<ProbeTasks[K]['progress']> | undefined;

export function createDeviceProbes(pool: WorkerPool, table: TurnTable, settings: DeviceSettings, networks: NetworkGuard): DeviceGate['probe'] {
  const batch = (input: Input<'probe-batch'>, options: Options<'probe-batch'>) => {
    for (const address of input.addresses) networks.check(address);
    return pool.run('probe-batch', { ...input, ports: { ...settings.ports }, turns: table.memory }, { ...(options?.cancel ? { cancel: options.cancel } : {}), ...(options?.onProgress ? { onProgress: options.onProgress } : {}) });
  };
  const sweep = (input: Input<'presence-sweep'>, options: Options<'presence-sweep'>) => {
    for (const target of input.targets) networks.check(target.address);
    return pool.run('presence-sweep', { ...input, rmcpPort: settings.ports.rmcp, turns: table.memory }, options?.cancel ? { cancel: options.cancel } : {});
  };
  // One dispatch: the task's name picks its input and output types.
  return ((task: keyof ProbeTasks, input: Input<keyof ProbeTasks>, options: Options<keyof ProbeTasks>) =>
    task === 'probe-batch' ? batch(input as Input<'probe-batch'>, options as Options<'probe-batch'>) : sweep(input as Input<'presence-sweep'>, options)) as DeviceGate['probe'];
}
