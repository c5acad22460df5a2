/** Task `power-change`: `RequestPowerStateChange` to a DMTF power state; `accepted` when ReturnValue is 0. */
import type { TaskTools } from '../task-api.js';
import { AmtError } from '../amt/errors.js';
import { runDeviceOperation } from '../amt/device-operation.js';
import { requestPowerStateChange } from '../amt/reads/power-change.js';
import type { PowerChangeInput, PowerChangeOutput } from './task-types.js';

export default async function powerChange(input: PowerChangeInput, tools: TaskTools): Promise<PowerChangeOutput> {
  return runDeviceOperation(input?.target, input?.credential, tools.signal, async (client) => {
    const state = input.powerState;
    if (!Number.isInteger(state) || state < 2 || state > 16) throw new AmtError('AMT_ERR_INVALID_INPUT', 'powerState must be a DMTF value from 2 to 16');
    const result = await requestPowerStateChange(client, state);
    return { returnValue: result.returnValue, accepted: result.ok };
  });
}
