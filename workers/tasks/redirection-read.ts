/** Task `redirection-read`: the device's KVM / SOL / IDER enablement and its consent policy and state. */
import type { TaskTools } from '../task-api.js';
import { runDeviceOperation } from '../amt/device-operation.js';
import { readRedirectionFeatures } from '../amt/reads/redirection-features.js';
import type { RedirectionReadInput, RedirectionReadOutput } from './task-types.js';

export default async function redirectionRead(input: RedirectionReadInput, tools: TaskTools): Promise<RedirectionReadOutput> {
  return runDeviceOperation(input?.target, input?.credential, tools.signal, async (client) => ({ features: await readRedirectionFeatures(client) }));
}
