/**
 * Inputs and outputs of the built-in device tasks, registered in {@link DeviceTaskMap} so that
 * `deviceGate.run(device, 'power-change', input)` is typed. Everything here is structured-clone-able.
 * What an operation decided not to do (an action the device does not offer, a consent not given) is
 * a `refused` value, not an error: the plugin that asked answers it in its own terms.
 */
import type { BootTarget } from '../amt/reads/boot-setting.js';
import type { EventRecord } from '../amt/reads/event-record.js';
import type { HardwareInventory } from '../amt/reads/hardware-inventory.js';
import type { HardwareSummary } from '../amt/reads/hardware-summary.js';
import type { PowerStateInfo } from '../amt/reads/power-state.js';
import type { FeatureChange, OptInAction, RedirectionFeatures } from '../amt/reads/redirection-features.js';

export type { PowerStateInfo } from '../amt/reads/power-state.js';

/** No input. */
export type NoInput = Record<string, never>;

export interface PowerChangeInput {
  /** DMTF value for `RequestPowerStateChange` (2 on, 5 cycle, 8 off, 10 reset, 4, 7, 12, 14). */
  powerState: number;
  /** The one-time boot setting written before the change (`bios` and `pxe` need consent where the device requires it for everything). */
  boot?: BootTarget;
  /** After an accepted change: re-read until the state is one of `states`, at most `attempts` reads, `intervalMs` apart. */
  confirm: { states: number[]; attempts: number; intervalMs: number };
}

export type PowerChangeOutput =
  /** The device does not offer the change now (nothing was written). */
  | { refused: 'action-unsupported'; before: PowerStateInfo }
  /** A boot choice needs consent the device requires for everything and has not been given (nothing was written). */
  | { refused: 'consent-required'; before: PowerStateInfo }
  | {
      refused: null;
      before: PowerStateInfo;
      /** The device's `ReturnValue`: 0 success. */
      returnValue: number | null;
      accepted: boolean;
      /** The state read after the change (the state before it when the device refused); null when it could not be read. */
      powerState: number | null;
      confirmed: boolean;
    };

export interface RedirectionWriteInput {
  change: FeatureChange;
}

export type RedirectionWriteOutput =
  /** The consent policy cannot change on this device (client control mode); nothing was written. */
  | { refused: 'consent-policy-fixed'; features: RedirectionFeatures }
  | { refused: null; features: RedirectionFeatures };

export interface OptInInput {
  request: OptInAction;
}

export interface EventLogInput {
  /** Most records returned (default 1,000). */
  maxRecords?: number;
}

declare module '../task-api.js' {
  interface DeviceTaskMap {
    'power-read': { input: NoInput; output: PowerStateInfo };
    'power-change': { input: PowerChangeInput; output: PowerChangeOutput };
    inventory: { input: NoInput; output: { classes: Partial<HardwareInventory>; summary: HardwareSummary } };
    'event-log': { input: EventLogInput; output: { records: EventRecord[] } };
    'redirection-read': { input: NoInput; output: { features: RedirectionFeatures } };
    'redirection-write': { input: RedirectionWriteInput; output: RedirectionWriteOutput };
    'opt-in': { input: OptInInput; output: { returnValue: number | null; optInState: number | null } };
  }
}
