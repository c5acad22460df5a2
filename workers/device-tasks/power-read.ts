/** Device task `power-read`: the current DMTF power state and the changes the device offers (one request). */
import { readPowerState } from '../amt/reads/power-state.js';
import type { BuiltInDeviceTask } from './built-in.js';
import type { NoInput, PowerStateInfo } from './device-task-types.js';

const powerRead: BuiltInDeviceTask<NoInput, PowerStateInfo> = (wsman) => readPowerState(wsman);
export default powerRead;
