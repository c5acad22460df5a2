/**
 * Reading and changing power states, each one operation of the device gate (`power-read`,
 * `power-change`: one turn of the device, one connection). A change reads what the device offers (an
 * action it does not offer is refused before anything is asked of it), checks a boot choice's consent
 * and writes the boot setting, requests the change, then re-reads until the device reports the state
 * the action leads to; that state is published as PowerStateChanged.
 */
import { isHttpError, type EventBus, type Logger } from '../../core/plugin-api.js';
import type { Device, DeviceGate, DeviceRegistry } from 'amt-gateway/devices';
import { createSemaphore } from '../../core/util/semaphore.js';
import type { PowerMgmtConfig } from './config.js';
import { PowerErrors } from './errors.js';
import { availableActions, expectedState, POWER_ACTIONS, stateName, statesNamed, type PowerAction } from './power-actions.js';

export type { BootTarget, BulkItemResult, BulkPowerResult, PowerChangeResult, PowerStatus } from './power-schemas.js';
import type { BootTarget, BulkItemResult, BulkPowerResult, PowerChangeResult, PowerStatus } from './power-schemas.js';
/** Refuses a boot choice the plugin that owns it cannot back now (throws an HttpError). */
export type BootCheck = (device: Device, boot: BootTarget) => void;

export interface PowerService {
  read(deviceId: string): Promise<PowerStatus>;
  change(deviceId: string, action: PowerAction, boot?: BootTarget): Promise<PowerChangeResult>;
  bulk(deviceIds: string[], action: PowerAction): Promise<BulkPowerResult>;
  /** Adds a check run before a boot choice is written (IDE-R boots need an open session: the redirection plugin adds it). */
  addBootCheck(check: BootCheck): void;
}

export interface PowerServiceDeps {
  devices: DeviceRegistry;
  gate: DeviceGate;
  events: EventBus;
  logger: Logger;
  config: PowerMgmtConfig;
}

export function createPowerService({ devices, gate, events, logger, config }: PowerServiceDeps): PowerService {
  const known = (id: string) => devices.require(id);
  const bootChecks: BootCheck[] = [];

  /** One operation in one turn of the device: read, checks, boot setting, change, confirming reads. */
  async function change(deviceId: string, action: PowerAction, boot?: BootTarget): Promise<PowerChangeResult> {
    const device = known(deviceId);
    if (boot === 'ider-cd' || boot === 'ider-floppy') {
      // Without the plugin that serves IDE-R there is nothing to boot from.
      if (bootChecks.length === 0) throw PowerErrors.iderUnavailable(device);
      for (const check of bootChecks) check(device, boot);
    }
    const confirm = { states: statesNamed(expectedState(action)), attempts: config.confirm.attempts, intervalMs: config.confirm.intervalMs };
    const result = await gate.run(device, 'power-change', { powerState: POWER_ACTIONS[action], ...(boot ? { boot } : {}), confirm }, config.device);
    if (result.refused === 'action-unsupported') throw PowerErrors.actionUnsupported(device, action, availableActions(result.before.availableRequestedPowerStates));
    if (result.refused === 'consent-required') throw PowerErrors.consentRequired(device);
    if (result.accepted && result.powerState !== null) events.publish('PowerStateChanged', { deviceId: device.id, powerState: result.powerState });
    return { deviceId: device.id, action, ...(boot ? { boot } : {}), returnValue: result.returnValue, ok: result.accepted, powerState: result.powerState, state: stateName(result.powerState), confirmed: result.confirmed };
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
      const value = await gate.run(device, 'power-read', {}, config.device);
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
