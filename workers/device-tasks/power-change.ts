/**
 * Device task `power-change`: a whole power change in one turn of the device, on one connection.
 * It reads what the device offers (an action it does not offer is refused before anything is
 * written), checks the consent a boot choice needs where the device requires it for everything,
 * writes the one-time boot setting, requests the change, then re-reads until the device reports a
 * state the change leads to. Refusals come back as data; device failures are thrown.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { AmtError } from '../amt/errors.js';
import { BOOT_TARGETS, writeBootSetting } from '../amt/reads/boot-setting.js';
import { requestPowerStateChange } from '../amt/reads/power-change.js';
import { readPowerState } from '../amt/reads/power-state.js';
import { OPT_IN_SERVICE } from '../amt/reads/redirection-features.js';
import type { WsmanClient } from '../amt/wsman-client.js';
import { intOf } from '../amt/wsman-parse.js';
import type { BuiltInDeviceTask } from './built-in.js';
import type { PowerChangeInput, PowerChangeOutput } from './device-task-types.js';

/** `OptInRequired` of a device that needs consent for everything (boot choices included). */
const OPT_IN_ALL = 0xffffffff;
/** `OptInState` 3 (received) and 4 (in session): consent is given. */
const CONSENT_GIVEN = new Set([3, 4]);
const MAX_CONFIRM_ATTEMPTS = 30;
const MAX_CONFIRM_INTERVAL_MS = 60_000;

function checkInput(input: PowerChangeInput): void {
  const { powerState, boot, confirm } = input ?? ({} as PowerChangeInput);
  if (!Number.isInteger(powerState) || powerState < 2 || powerState > 16) throw new AmtError('AMT_ERR_INVALID_INPUT', 'powerState must be a DMTF value from 2 to 16');
  if (boot !== undefined && !BOOT_TARGETS.includes(boot)) throw new AmtError('AMT_ERR_INVALID_INPUT', `boot is one of ${BOOT_TARGETS.join(', ')}`);
  const { states, attempts, intervalMs } = confirm ?? {};
  if (!Array.isArray(states) || !Number.isInteger(attempts) || attempts < 1 || attempts > MAX_CONFIRM_ATTEMPTS || !Number.isInteger(intervalMs) || intervalMs < 0 || intervalMs > MAX_CONFIRM_INTERVAL_MS) {
    throw new AmtError('AMT_ERR_INVALID_INPUT', `confirm needs states, 1-${MAX_CONFIRM_ATTEMPTS} attempts and an interval of 0-${MAX_CONFIRM_INTERVAL_MS} ms`);
  }
}

/** Whether a boot choice needs consent the device has not been given (a device without the opt-in service has none). */
async function consentMissing(wsman: WsmanClient): Promise<boolean> {
  let optIn;
  try {
    optIn = await wsman.get(OPT_IN_SERVICE);
  } catch (error) {
    if (error instanceof AmtError && error.code === 'AMT_ERR_FAULT') return false;
    throw error;
  }
  return intOf(optIn.properties['OptInRequired']) === OPT_IN_ALL && !CONSENT_GIVEN.has(intOf(optIn.properties['OptInState']) ?? -1);
}

/** Re-reads until the state is one of `states` or the attempts are spent; a device busy resetting may not answer a read. */
async function confirm(wsman: WsmanClient, { states, attempts, intervalMs }: PowerChangeInput['confirm'], signal: AbortSignal): Promise<{ powerState: number | null; confirmed: boolean }> {
  let powerState: number | null = null;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await delay(intervalMs, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) break;
    try {
      powerState = (await readPowerState(wsman)).powerState;
      if (powerState !== null && states.includes(powerState)) return { powerState, confirmed: true };
    } catch (error) {
      if (!(error instanceof AmtError) || error.code === 'AMT_ERR_UNAUTHORIZED' || error.code === 'AMT_ERR_LOCKED_OUT' || error.code === 'AMT_ERR_CANCELLED') throw error;
    }
  }
  return { powerState, confirmed: false };
}

const powerChange: BuiltInDeviceTask<PowerChangeInput, PowerChangeOutput> = async (wsman, input, { signal }) => {
  checkInput(input);
  const before = await readPowerState(wsman);
  if (!before.availableRequestedPowerStates.includes(input.powerState)) return { refused: 'action-unsupported', before };
  if (input.boot) {
    if (input.boot !== 'hdd' && (await consentMissing(wsman))) return { refused: 'consent-required', before };
    await writeBootSetting(wsman, input.boot);
  }
  const { returnValue, ok } = await requestPowerStateChange(wsman, input.powerState);
  if (!ok) return { refused: null, before, returnValue, accepted: false, powerState: before.powerState, confirmed: false };
  return { refused: null, before, returnValue, accepted: true, ...(await confirm(wsman, input.confirm, signal)) };
};
export default powerChange;
