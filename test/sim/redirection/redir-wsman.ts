/**
 * The WS-Management side of redirection on a simulated device: features (AMT_RedirectionService,
 * CIM_KVMRedirectionSAP, IPS_KVMRedirectionSettingData), consent (IPS_OptInService) and the one-time
 * boot setting (AMT_BootSettingData, CIM_BootConfigSetting, CIM_BootService), as instances, Puts and
 * methods that `sim-wsman.ts` serves.
 */
import type { DeviceState } from '../device-state.js';
import type { SimInstance } from '../sim-xml.js';
import { instanceTemplate } from '../answers/answer-templates.js';
import { OPT_IN as OPT_IN_REQUIRED } from './redir-state.js';

const REDIRECTION_SERVICE = instanceTemplate('vectors/amt/redirectionservice/get.xml');
const KVM_SAP = instanceTemplate('vectors/cim/kvm/get.xml');
const KVM_SETTINGS = instanceTemplate('second-source/ips/kvmredirection/settings/get.xml');
const OPT_IN = instanceTemplate('vectors/ips/optin/get.xml');
const BOOT_SETTING = instanceTemplate('vectors/amt/boot/settingdata/get.xml');
const BOOT_CONFIG = instanceTemplate('vectors/cim/boot/configsetting/get.xml');
const BOOT_SERVICE = instanceTemplate('vectors/cim/boot/service/get.xml');

function redirectionService(s: DeviceState): SimInstance {
  const r = s.redirection;
  return REDIRECTION_SERVICE.with({ EnabledState: 32768 + (r.ider ? 1 : 0) + (r.sol ? 2 : 0), ListenerEnabled: r.listener });
}

function kvmSap(s: DeviceState): SimInstance {
  const r = s.redirection;
  // 2: enabled with a session open, 6: enabled and idle, 3: disabled.
  return KVM_SAP.with({ EnabledState: r.kvm ? (r.open.has('kvm') ? 2 : 6) : 3, RequestedState: r.kvm ? 2 : 3 });
}

function kvmSettings(s: DeviceState): SimInstance {
  return KVM_SETTINGS.with({
    OptInPolicy: s.redirection.optInRequired !== OPT_IN_REQUIRED.none,
    SessionTimeout: Math.max(1, Math.round(s.redirection.timeouts.kvmIdleMs / 60_000)),
  });
}

function optInService(s: DeviceState): SimInstance {
  const r = s.redirection;
  // CanModifyOptInPolicy is a uint32: the template (the vector) writes it 1 / 0.
  return OPT_IN.with({ CanModifyOptInPolicy: !r.optInPolicyFixed, OptInRequired: r.optInRequired, OptInState: r.optInState });
}

const bootSettingData = (s: DeviceState): SimInstance =>
  BOOT_SETTING.with({ BIOSSetup: s.redirection.boot.biosSetup, IDERBootDevice: s.redirection.boot.iderDevice, UseIDER: s.redirection.boot.useIder });

export const REDIRECTION_INSTANCES: Record<string, (s: DeviceState) => SimInstance> = {
  AMT_RedirectionService: redirectionService,
  CIM_KVMRedirectionSAP: kvmSap,
  IPS_KVMRedirectionSettingData: kvmSettings,
  IPS_OptInService: optInService,
  AMT_BootSettingData: bootSettingData,
  CIM_BootConfigSetting: () => BOOT_CONFIG.with(),
  CIM_BootService: () => BOOT_SERVICE.with(),
};

/** A field of a Put body or a method input, by name; `ref(name)` gives a reference's selectors. */
export interface InputReader {
  text(name: string): string | undefined;
  selectors(name: string): Record<string, string> | undefined;
}

const bool = (v: string | undefined): boolean | undefined => (v === undefined ? undefined : v === 'true');

/** Puts by class: false when the device refuses the change (answered with a Fault). */
export const REDIRECTION_PUTS: Record<string, (s: DeviceState, input: InputReader) => boolean> = {
  AMT_RedirectionService(s, input) {
    const listener = bool(input.text('ListenerEnabled'));
    if (listener !== undefined) s.redirection.listener = listener;
    return true;
  },
  IPS_OptInService(s, input) {
    const asked = input.text('OptInRequired');
    if (asked === undefined) return true;
    const value = Number(asked);
    if (s.redirection.optInPolicyFixed && value !== s.redirection.optInRequired) return false;
    if (value !== OPT_IN_REQUIRED.none && value !== OPT_IN_REQUIRED.kvm && value !== OPT_IN_REQUIRED.all) return false;
    s.redirection.optInRequired = value;
    return true;
  },
  AMT_BootSettingData(s, input) {
    s.redirection.boot.biosSetup = bool(input.text('BIOSSetup')) ?? false;
    s.redirection.boot.useIder = bool(input.text('UseIDER')) ?? false;
    s.redirection.boot.iderDevice = Number(input.text('IDERBootDevice') ?? 0) === 1 ? 1 : 0;
    return true;
  },
};

/** Methods by class and name: they return the `ReturnValue`. */
export const REDIRECTION_METHODS: Record<string, Record<string, (s: DeviceState, input: InputReader) => number>> = {
  AMT_RedirectionService: {
    RequestStateChange(s, input) {
      const asked = Number(input.text('RequestedState'));
      if (asked < 32768 || asked > 32771) return 2;
      s.redirection.ider = (asked & 1) === 1;
      s.redirection.sol = (asked & 2) === 2;
      return 0;
    },
  },
  CIM_KVMRedirectionSAP: {
    RequestStateChange(s, input) {
      const asked = Number(input.text('RequestedState'));
      if (asked !== 2 && asked !== 3) return 2;
      s.redirection.kvm = asked === 2;
      return 0;
    },
  },
  IPS_OptInService: {
    StartOptIn(s) {
      s.redirection.startConsent();
      return 0;
    },
    SendOptInCode(s, input) {
      return s.redirection.sendCode(String(input.text('OptInCode') ?? '').padStart(6, '0')) ? 0 : 2066;
    },
    CancelOptIn(s) {
      s.redirection.cancelConsent();
      return 0;
    },
  },
  CIM_BootConfigSetting: {
    ChangeBootOrder(s, input) {
      const source = input.selectors('Source')?.['InstanceID'] ?? '';
      s.redirection.boot.pxe = source === 'Intel(r) AMT: Force PXE Boot';
      return 0;
    },
  },
  CIM_BootService: {
    SetBootConfigRole(s, input) {
      if (Number(input.text('Role')) !== 1 || !input.selectors('BootConfigSetting')) return 2;
      s.redirection.boot.armed = true;
      return 0;
    },
  },
};
