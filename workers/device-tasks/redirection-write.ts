/**
 * Device task `redirection-write`: reads the features, refuses a consent policy change the device
 * does not allow (client control mode), else changes KVM / SOL / IDER enablement and the policy and
 * returns them read back: the check and the change in one turn of the device.
 */
import { readRedirectionFeatures, writeRedirectionFeatures } from '../amt/reads/redirection-features.js';
import type { BuiltInDeviceTask } from './built-in.js';
import type { RedirectionWriteInput, RedirectionWriteOutput } from './device-task-types.js';

const redirectionWrite: BuiltInDeviceTask<RedirectionWriteInput, RedirectionWriteOutput> = async (wsman, input) => {
  const change = input?.change ?? {};
  const before = await readRedirectionFeatures(wsman);
  if (change.optInRequired !== undefined && change.optInRequired !== before.optInRequired && !before.canModifyOptInPolicy) return { refused: 'consent-policy-fixed', features: before };
  return { refused: null, features: await writeRedirectionFeatures(wsman, change, before) };
};
export default redirectionWrite;
