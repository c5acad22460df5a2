/**
 * A device's redirection features and consent, read and written through the device gate (pool tasks,
 * or in-process through a CIRA tunnel), in the contract's shape.
 */
import type { Device, DeviceGate, DeviceRunOptions } from 'amt-gateway/devices';
import type { OptInAction, RedirectionFeatures } from '../../workers/tasks/task-types.js';
import { RedirectionErrors } from './errors.js';
import { OPT_IN_STATES, type SESSION_MODES, type USER_CONSENT } from './schemas.js';

export type UserConsent = (typeof USER_CONSENT)[number];
export type OptInStateName = (typeof OPT_IN_STATES)[number];
export type SessionMode = (typeof SESSION_MODES)[number];

/** `OptInRequired` of each consent policy. */
const OPT_IN_REQUIRED: Record<UserConsent, number> = { none: 0, kvm: 1, all: 0xffffffff };
const OPT_IN_WRONG_CODE = 2066;

export interface DeviceRedirection {
  features: { kvm: boolean; sol: boolean; ider: boolean };
  userConsent: UserConsent;
  optInState: OptInStateName;
  /** False on a device in client control mode. */
  canModifyOptInPolicy: boolean;
}

export function userConsentOf(optInRequired: number | null): UserConsent {
  if (optInRequired === 0) return 'none';
  if (optInRequired === 1) return 'kvm';
  return 'all';
}

export function optInStateName(state: number | null): OptInStateName {
  return OPT_IN_STATES[state ?? 0] ?? 'not-started';
}

/** The device's answer in the contract's terms: a feature behind a closed listener is off. */
export function toDeviceRedirection(f: RedirectionFeatures): DeviceRedirection {
  return {
    features: { kvm: f.listener && f.kvm, sol: f.listener && f.sol, ider: f.listener && f.ider },
    userConsent: userConsentOf(f.optInRequired),
    optInState: optInStateName(f.optInState),
    canModifyOptInPolicy: f.canModifyOptInPolicy,
  };
}

/** Whether a session of `mode` needs consent that has not been given. */
export function needsConsent(state: DeviceRedirection, mode: SessionMode | 'ider'): boolean {
  if (state.optInState === 'received' || state.optInState === 'in-session') return false;
  return state.userConsent === 'all' || (state.userConsent === 'kvm' && mode === 'kvm');
}

import type { FeatureRequest } from './schemas.js';
export type { FeatureRequest };

/** A device's redirection features and consent, each read or change one operation of the device gate (one turn of the device). */
export function createRedirectionReads(gate: DeviceGate, bounds: DeviceRunOptions) {
  const read = async (device: Device): Promise<DeviceRedirection> => toDeviceRedirection((await gate.run(device, 'redirection-read', {}, bounds)).features);
  const optIn = (device: Device, request: OptInAction) => gate.run(device, 'opt-in', { request }, bounds);
  return {
    read,
    /** Changes features and consent policy; the device's check that its policy may change runs in the same operation. */
    async write(device: Device, request: FeatureRequest): Promise<DeviceRedirection> {
      const { userConsent, ...features } = request;
      const change = { ...features, ...(userConsent !== undefined ? { optInRequired: OPT_IN_REQUIRED[userConsent] } : {}) };
      const result = await gate.run(device, 'redirection-write', { change }, bounds);
      if (result.refused === 'consent-policy-fixed') throw RedirectionErrors.consentPolicyFixed(device);
      return toDeviceRedirection(result.features);
    },
    async startConsent(device: Device): Promise<OptInStateName> {
      const value = await optIn(device, { action: 'start' });
      if (value.returnValue !== 0) throw RedirectionErrors.consentFailed(device, value.returnValue);
      return optInStateName(value.optInState);
    },
    async sendCode(device: Device, code: string): Promise<OptInStateName> {
      const value = await optIn(device, { action: 'code', code });
      if (value.returnValue === OPT_IN_WRONG_CODE) throw RedirectionErrors.wrongCode(device);
      if (value.returnValue !== 0) throw RedirectionErrors.consentFailed(device, value.returnValue);
      return optInStateName(value.optInState);
    },
    async cancelConsent(device: Device): Promise<void> {
      const value = await optIn(device, { action: 'cancel' });
      if (value.returnValue !== 0) throw RedirectionErrors.consentFailed(device, value.returnValue);
    },
  };
}

export type RedirectionReads = ReturnType<typeof createRedirectionReads>;
