/** Task `power-read`: the device's current DMTF power state and the changes it offers. */
import type { TaskTools } from '../task-api.js';
import { runDeviceOperation } from '../amt/device-operation.js';
import { readPowerState } from '../amt/reads/power-state.js';
import type { PowerReadInput, PowerReadOutput } from './task-types.js';

export default async function powerRead(input: PowerReadInput, tools: TaskTools): Promise<PowerReadOutput> {
  return runDeviceOperation(input?.target, input?.credential, tools.signal, (client) => readPowerState(client));
}
