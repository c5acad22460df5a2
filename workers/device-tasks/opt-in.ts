/** Device task `opt-in`: starts user consent, sends the code the person at the machine read out, or cancels it. */
import { AmtError } from '../amt/errors.js';
import { optIn } from '../amt/reads/redirection-features.js';
import type { BuiltInDeviceTask } from './built-in.js';
import type { OptInInput } from './device-task-types.js';

const optInTask: BuiltInDeviceTask<OptInInput, { returnValue: number | null; optInState: number | null }> = async (wsman, input) => {
  const request = input?.request;
  if (!request || !['start', 'code', 'cancel'].includes(request.action)) throw new AmtError('AMT_ERR_INVALID_INPUT', 'the consent request is start, code or cancel');
  if (request.action === 'code' && !/^\d{6}$/.test(String(request.code))) throw new AmtError('AMT_ERR_INVALID_INPUT', 'the code is six digits');
  return optIn(wsman, request);
};
export default optInTask;
