/** Task `opt-in`: starts user consent, sends the code the person at the machine read out, or cancels it. */
import type { TaskTools } from '../task-api.js';
import { AmtError } from '../amt/errors.js';
import { runDeviceOperation } from '../amt/device-operation.js';
import { optIn } from '../amt/reads/redirection-features.js';
import type { OptInInput, OptInOutput } from './task-types.js';

export default async function optInTask(input: OptInInput, tools: TaskTools): Promise<OptInOutput> {
  return runDeviceOperation(input?.target, input?.credential, tools.signal, async (client) => {
    const request = input.request;
    if (request?.action === 'code' && !/^\d{6}$/.test(String(request.code))) throw new AmtError('AMT_ERR_INVALID_INPUT', 'the code is six digits');
    return optIn(client, request);
  });
}
