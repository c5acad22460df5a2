/** Task `redirection-write`: changes KVM / SOL / IDER enablement and the consent policy; returns them read back. */
import type { TaskTools } from '../task-api.js';
import { runDeviceOperation } from '../amt/device-operation.js';
import { writeRedirectionFeatures } from '../amt/reads/redirection-features.js';
import type { RedirectionWriteInput, RedirectionReadOutput } from './task-types.js';

export default async function redirectionWrite(input: RedirectionWriteInput, tools: TaskTools): Promise<RedirectionReadOutput> {
  return runDeviceOperation(input?.target, input?.credential, tools.signal, async (client) => ({ features: await writeRedirectionFeatures(client, input.change ?? {}) }));
}
