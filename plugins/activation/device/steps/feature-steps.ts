/**
 * The profile's redirection features and user consent, written after activation: each read once
 * and written only where it differs from what the profile asks.
 */
import { flattenProperties, intOf, textOf } from '../../../../workers/amt/wsman-parse.js';
import { safeProperties, type FirmwareCalls } from '../firmware-calls.js';

/** `AMT_RedirectionService.EnabledState`: 32768, plus 1 for IDE-R, plus 2 for SOL. */
const REDIRECTION_BASE = 32768;
/** `IPS_OptInService.OptInRequired`: none, KVM only, everything. */
export const OPT_IN_REQUIRED = { none: 0, kvm: 1, all: 0xffffffff } as const;

export interface WantedFeatures {
  kvm: boolean;
  sol: boolean;
  ider: boolean;
  userConsent: keyof typeof OPT_IN_REQUIRED;
}

/** What the firmware had and what was changed, for the record. */
export interface FeatureResult {
  changed: string[];
}

const isTrue = (value: string | null) => value?.toLowerCase() === 'true';

/**
 * Applies the profile: SOL and IDE-R (one state change), KVM, the redirection listener (needed by
 * any of them), and in admin control mode the consent policy (client control mode fixes it at "all").
 */
export async function applyFeatures(calls: FirmwareCalls, wanted: WantedFeatures, adminMode: boolean): Promise<FeatureResult> {
  const changed: string[] = [];
  const service = await calls.get(calls.amt.RedirectionService.Get(), 'AMT_RedirectionService');
  const enabled = (intOf(service.properties['EnabledState']) ?? REDIRECTION_BASE) - REDIRECTION_BASE;
  const state = REDIRECTION_BASE + (wanted.ider ? 1 : 0) + (wanted.sol ? 2 : 0);
  if (enabled !== state - REDIRECTION_BASE) {
    await calls.invokeOk(calls.amt.RedirectionService.RequestStateChange(state as never), 'RequestStateChange', 'AMT_RedirectionService.RequestStateChange');
    changed.push('sol/ider');
  }
  const kvm = await calls.get(calls.cim.KVMRedirectionSAP.Get(), 'CIM_KVMRedirectionSAP');
  const kvmState = intOf(kvm.properties['EnabledState']);
  // 2: enabled with a session, 6: enabled; 3: disabled.
  const kvmOn = kvmState === 2 || kvmState === 6;
  if (kvmOn !== wanted.kvm) {
    await calls.invokeOk(calls.cim.KVMRedirectionSAP.RequestStateChange((wanted.kvm ? 2 : 3) as never), 'RequestStateChange', 'CIM_KVMRedirectionSAP.RequestStateChange');
    changed.push('kvm');
  }
  if ((wanted.kvm || wanted.sol || wanted.ider) && !isTrue(textOf(service.properties['ListenerEnabled']))) {
    // A Put gives every property back as read (AMT wants the whole instance), the listener on.
    const properties = { ...flattenProperties(service.properties), ListenerEnabled: 'true' };
    await calls.put(calls.amt.RedirectionService.Put(safeProperties(properties) as never), 'AMT_RedirectionService');
    changed.push('listener');
  }
  if (adminMode) {
    const optIn = await calls.get(calls.ips.OptInService.Get(), 'IPS_OptInService');
    const required = OPT_IN_REQUIRED[wanted.userConsent];
    if (intOf(optIn.properties['OptInRequired']) !== required) {
      const properties = { ...flattenProperties(optIn.properties), OptInRequired: String(required) };
      // This builder takes the instance under its class name.
      await calls.put(calls.ips.OptInService.Put({ IPS_OptInService: safeProperties(properties) } as never), 'IPS_OptInService');
      changed.push('consent');
    }
  }
  return { changed };
}
