/**
 * The WS-Management side of redirection on a simulated device: features (AMT_RedirectionService,
 * CIM_KVMRedirectionSAP, IPS_KVMRedirectionSettingData), consent (IPS_OptInService) and the one-time
 * boot setting (AMT_BootSettingData, CIM_BootConfigSetting, CIM_BootService), as instances, Puts and
 * methods that `sim-wsman.ts` serves.
 */
import type { DeviceState } from '../device-state.js';
import type { SimInstance } from '../sim-xml.js';
import { OPT_IN } from './redir-state.js';

const SYSTEM = [
  ['SystemCreationClassName', 'CIM_ComputerSystem'],
  ['SystemName', 'Intel(r) AMT'],
] as const;

function redirectionService(s: DeviceState): SimInstance {
  const r = s.redirection;
  return {
    className: 'AMT_RedirectionService',
    props: [
      ['AccessLog', ''],
      ['CreationClassName', 'AMT_RedirectionService'],
      ['ElementName', 'Intel(r) AMT Redirection Service'],
      ['EnabledState', 32768 + (r.ider ? 1 : 0) + (r.sol ? 2 : 0)],
      ['ListenerEnabled', r.listener],
      ['Name', 'Intel(r) AMT Redirection Service'],
      ...SYSTEM,
    ],
  };
}

function kvmSap(s: DeviceState): SimInstance {
  const r = s.redirection;
  return {
    className: 'CIM_KVMRedirectionSAP',
    props: [
      ['CreationClassName', 'CIM_KVMRedirectionSAP'],
      ['ElementName', 'KVM Redirection Service Access Point'],
      // 2: enabled with a session open, 6: enabled and idle, 3: disabled.
      ['EnabledState', r.kvm ? (r.open.has('kvm') ? 2 : 6) : 3],
      ['KVMProtocol', 4],
      ['Name', 'KVM Redirection Service Access Point'],
      ['RequestedState', r.kvm ? 2 : 3],
      ...SYSTEM,
    ],
  };
}

function kvmSettings(s: DeviceState): SimInstance {
  return {
    className: 'IPS_KVMRedirectionSettingData',
    props: [
      ['DefaultScreen', 0],
      ['ElementName', 'Intel(r) KVM Redirection Settings'],
      ['EnabledByMEBx', true],
      ['InstanceID', 'Intel(r) KVM Redirection Settings'],
      ['Is5900PortEnabled', false],
      ['OptInPolicy', s.redirection.optInRequired !== OPT_IN.none],
      ['SessionTimeout', Math.max(1, Math.round(s.redirection.timeouts.kvmIdleMs / 60_000))],
    ],
  };
}

function optInService(s: DeviceState): SimInstance {
  const r = s.redirection;
  return {
    className: 'IPS_OptInService',
    props: [
      ['CanModifyOptInPolicy', !r.optInPolicyFixed],
      ['CreationClassName', 'IPS_OptInService'],
      ['ElementName', 'Intel(r) AMT OptIn Service'],
      ['Name', 'Intel(r) AMT OptIn Service'],
      ['OptInCodeTimeout', 120],
      ['OptInDisplayTimeout', 300],
      ['OptInRequired', r.optInRequired],
      ['OptInState', r.optInState],
      ...SYSTEM,
    ],
  };
}

function bootSettingData(s: DeviceState): SimInstance {
  return {
    className: 'AMT_BootSettingData',
    props: [
      ['BIOSPause', false],
      ['BIOSSetup', s.redirection.boot.biosSetup],
      ['BootMediaIndex', 0],
      ['ElementName', 'Intel(r) AMT Boot Configuration Settings'],
      ['InstanceID', 'Intel(r) AMT:BootSettingData 0'],
      ['IDERBootDevice', s.redirection.boot.iderDevice],
      ['UseIDER', s.redirection.boot.useIder],
      ['UseSOL', false],
      ['UseSafeMode', false],
    ],
  };
}

const bootConfig = (): SimInstance => ({ className: 'CIM_BootConfigSetting', props: [['ElementName', 'Intel(r) AMT: Boot Configuration'], ['InstanceID', 'Intel(r) AMT: Boot Configuration 0']] });
const bootService = (): SimInstance => ({ className: 'CIM_BootService', props: [['CreationClassName', 'CIM_BootService'], ['ElementName', 'Intel(r) AMT Boot Service'], ['Name', 'Intel(r) AMT Boot Service'], ...SYSTEM] });

export const REDIRECTION_INSTANCES: Record<string, (s: DeviceState) => SimInstance> = {
  AMT_RedirectionService: redirectionService,
  CIM_KVMRedirectionSAP: kvmSap,
  IPS_KVMRedirectionSettingData: kvmSettings,
  IPS_OptInService: optInService,
  AMT_BootSettingData: bootSettingData,
  CIM_BootConfigSetting: bootConfig,
  CIM_BootService: bootService,
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
    if (value !== OPT_IN.none && value !== OPT_IN.kvm && value !== OPT_IN.all) return false;
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
