/** Device task `redirection-read`: the device's KVM / SOL / IDER enablement and its consent policy and state. */
import { readRedirectionFeatures, type RedirectionFeatures } from '../amt/reads/redirection-features.js';
import type { BuiltInDeviceTask } from './built-in.js';
import type { NoInput } from './device-task-types.js';

const redirectionRead: BuiltInDeviceTask<NoInput, { features: RedirectionFeatures }> = async (wsman) => ({ features: await readRedirectionFeatures(wsman) });
export default redirectionRead;
