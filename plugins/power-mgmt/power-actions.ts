/** The power actions of the contract (section 9), their DMTF values, and what the device reports. */

/** Action names and their `RequestPowerStateChange` values, in the contract's order. */
export const POWER_ACTIONS = { on: 2, cycle: 5, off: 8, reset: 10, sleep: 4, hibernate: 7, 'soft-off': 12, 'soft-reset': 14 } as const;

export type PowerAction = keyof typeof POWER_ACTIONS;
export type PowerStateName = 'on' | 'sleep' | 'hibernate' | 'off' | 'unknown';

export const ACTION_NAMES = Object.keys(POWER_ACTIONS) as PowerAction[];

/** The state a DMTF `PowerState` means: 2 on; 3, 4 sleep; 7 hibernate; 6, 8, 9, 12, 13 off. */
export function stateName(powerState: number | null): PowerStateName {
  switch (powerState) {
    case 2:
      return 'on';
    case 3:
    case 4:
      return 'sleep';
    case 7:
      return 'hibernate';
    case 6:
    case 8:
    case 9:
    case 12:
    case 13:
      return 'off';
    default:
      return 'unknown';
  }
}

/** The DMTF `PowerState` values of each state name (those `stateName` maps to it). */
export function statesNamed(name: PowerStateName): number[] {
  return Array.from({ length: 17 }, (_, value) => value).filter((value) => stateName(value) === name);
}

/** The actions a device offers, from its `AvailableRequestedPowerStates`. */
export function availableActions(available: readonly number[]): PowerAction[] {
  return ACTION_NAMES.filter((action) => available.includes(POWER_ACTIONS[action]));
}

/** The state an action leads to once the device has carried it out (a reset or cycle ends on). */
export function expectedState(action: PowerAction): PowerStateName {
  switch (action) {
    case 'off':
    case 'soft-off':
      return 'off';
    case 'sleep':
      return 'sleep';
    case 'hibernate':
      return 'hibernate';
    default:
      return 'on';
  }
}
