/**
 * Reading and changing power states. A change first reads what the device offers (an action it does
 * not offer is refused before anything is asked of it), then requests the change, then re-reads until
 * the device reports the state the action leads to, and publishes that state as PowerStateChanged.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { isHttpError, type EventBus, type Logger } from '../../core/plugin-api.js';
import type { Device, DeviceAccess, DeviceRegistry } from 'amt-gateway/devices';
import { createSemaphore } from '../../core/util/semaphore.js';
import type { TaskCredential } from '../../workers/tasks/task-types.js';
import type { PowerMgmtConfig } from './config.js';
import { PowerErrors } from './errors.js';
import { availableActions, expectedState, POWER_ACTIONS, stateName, type PowerAction, type PowerStateName } from './power-actions.js';

export type { BootTarget, BulkItemResult, BulkPowerResult, PowerChangeResult, PowerStatus } from './power-schemas.js';
import type { BootTarget, BulkItemResult, BulkPowerResult, PowerChangeResult, PowerStatus } from './power-schemas.js';
/** Refuses a boot choice the plugin that owns it cannot back now (throws an HttpError). */
export type BootCheck = (device: Device, boot: BootTarget) => void;
/** `OptInRequired` of a device that needs consent for everything (boot choices included). */
const OPT_IN_ALL = 0xffffffff;

export interface PowerService {
  read(deviceId: string): Promise<PowerStatus>;
  change(deviceId: string, action: PowerAction, boot?: BootTarget): Promise<PowerChangeResult>;
  bulk(deviceIds: string[], action: PowerAction): Promise<BulkPowerResult>;
  /** Adds a check run before a boot choice is written (IDE-R boots need an open session: the redirection plugin adds it). */
  addBootCheck(check: BootCheck): void;
}

export interface PowerServiceDeps {
  devices: DeviceRegistry;
  access: DeviceAccess;
  events: EventBus;
  logger: Logger;
  config: PowerMgmtConfig;
}

export function createPowerService({ devices, access, events, logger, config }: PowerServiceDeps): PowerService {
  const known = (id: string) => devices.require(id);
  const bootChecks: BootCheck[] = [];
  const readPower = (device: Device, credential?: TaskCredential) => access.run(device, (input, tasks) => tasks.run('power-read', input), credential);

  /** Re-reads until the state is the expected one or the attempts are spent; a device busy rebooting may not answer. */
  async function confirm(device: Device, credential: TaskCredential, expected: PowerStateName): Promise<{ powerState: number | null; confirmed: boolean }> {
    let powerState: number | null = null;
    for (let attempt = 0; attempt < config.confirm.attempts; attempt++) {
      if (attempt > 0) await delay(config.confirm.intervalMs);
      try {
        powerState = (await readPower(device, credential)).value.powerState;
        if (stateName(powerState) === expected) return { powerState, confirmed: true };
      } catch (err) {
        if (!isHttpError(err)) throw err;
      }
    }
    return { powerState, confirmed: false };
  }

  /** Writes the one-time boot setting, after checking the consent a device requiring it for all needs. */
  async function writeBoot(device: Device, credential: TaskCredential, boot: BootTarget): Promise<void> {
    if (boot !== 'hdd') {
      const { value } = await access.run(device, (input, tasks) => tasks.run('redirection-read', input), credential);
      const { optInRequired, optInState } = value.features;
      if (optInRequired === OPT_IN_ALL && optInState !== 3 && optInState !== 4) throw PowerErrors.consentRequired(device);
    }
    await access.run(device, (input, tasks) => tasks.run('boot-setting', { ...input, boot }), credential);
  }

  async function change(deviceId: string, action: PowerAction, boot?: BootTarget): Promise<PowerChangeResult> {
    const device = known(deviceId);
    if (boot === 'ider-cd' || boot === 'ider-floppy') {
      // Without the plugin that serves IDE-R there is nothing to boot from.
      if (bootChecks.length === 0) throw PowerErrors.iderUnavailable(device);
      for (const check of bootChecks) check(device, boot);
    }
    const { value: before, credential } = await readPower(device);
    const offered = availableActions(before.availableRequestedPowerStates);
    if (!offered.includes(action)) throw PowerErrors.actionUnsupported(device, action, offered);
    if (boot) await writeBoot(device, credential, boot);
    const { value: requested } = await access.run(device, (input, tasks) => tasks.run('power-change', { ...input, powerState: POWER_ACTIONS[action] }), credential);
    const base = { deviceId: device.id, action, ...(boot ? { boot } : {}), returnValue: requested.returnValue, ok: requested.accepted };
    if (!requested.accepted) return { ...base, powerState: before.powerState, state: stateName(before.powerState), confirmed: false };
    const after = await confirm(device, credential, expectedState(action));
    if (after.powerState !== null) events.publish('PowerStateChanged', { deviceId: device.id, powerState: after.powerState });
    return { ...base, powerState: after.powerState, state: stateName(after.powerState), confirmed: after.confirmed };
  }

  async function bulkItem(deviceId: string, action: PowerAction): Promise<BulkItemResult> {
    try {
      const { action: _action, ...result } = await change(deviceId, action);
      return result;
    } catch (err) {
      const failed = { deviceId, returnValue: null, ok: false, powerState: null, state: 'unknown' as const, confirmed: false };
      if (isHttpError(err)) return { ...failed, error: { status: err.status, code: err.code, detail: (err.expose ?? err.status < 500) ? err.message : 'the gateway could not complete the change' } };
      logger.error('bulk power change failed', { deviceId, error: err instanceof Error ? err.message : String(err) });
      return { ...failed, error: { status: 500, code: 'GW_ERR_INTERNAL', detail: 'internal error' } };
    }
  }

  return {
    async read(deviceId) {
      const device = known(deviceId);
      const { value } = await readPower(device);
      return { deviceId: device.id, powerState: value.powerState, state: stateName(value.powerState), availableActions: availableActions(value.availableRequestedPowerStates) };
    },
    change,
    addBootCheck: (check) => void bootChecks.push(check),
    async bulk(deviceIds, action) {
      const limit = createSemaphore(config.bulk.concurrency);
      const results = await Promise.all(deviceIds.map((id) => limit.run(() => bulkItem(id, action))));
      const succeeded = results.filter((r) => r.ok).length;
      return { action, total: results.length, succeeded, failed: results.length - succeeded, results };
    },
  };
}
