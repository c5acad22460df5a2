/**
 * What the online monitor tells presence: the LAN path of a device, and nothing else. The LAN is up
 * only when the device answered there, and down once the monitor's missed probes say it is offline;
 * presence (the `devicePresence` service) merges it with the other paths and publishes the flips.
 * Also what scans tell the monitor: a device a scan found answering on the LAN answered, and a
 * removed device is no longer tracked.
 */
import type { EventBus, Logger } from '../../core/plugin-api.js';
import type { DevicePresence, DeviceRegistry } from 'amt-gateway/devices';
import { onLan } from './lan-path.js';
import type { PresenceStates } from './presence-states.js';
import type { SweepScheduler } from './sweep-scheduler.js';

export interface StatusFeed {
  /** Reports the device's LAN path to presence when the monitor's state and the device's record differ. */
  onObserved(deviceId: string): void;
  /** Subscribes to DeviceDiscovered and DeviceRemoved; returns the unsubscriber. */
  listen(scheduler: SweepScheduler, intervalMs: number): () => void;
}

export function createStatusFeed(events: EventBus, devices: DeviceRegistry, presence: DevicePresence, states: PresenceStates, logger: Logger): StatusFeed {
  function onObserved(deviceId: string): void {
    const device = devices.get(deviceId);
    const state = states.get(deviceId);
    if (!device || !state) return;
    const lan = onLan(device);
    // Never up without an answer on the LAN: whatever else keeps the device online is another path's.
    const seen = state.answering && !lan ? true : !state.online && lan ? false : undefined;
    if (seen === undefined) return;
    presence.report({ deviceId }, 'lan', seen).catch((err: Error) => logger.warn('could not report the LAN presence of a device', { deviceId, error: err.message }));
  }

  return {
    onObserved,
    listen(scheduler, intervalMs) {
      const offDiscovered = events.subscribe('DeviceDiscovered', ({ device }) => {
        // A device seen for the first time starts unknown, so that finding it answering is a change.
        if (!states.has(device.id)) {
          states.track(device, { online: false, since: null, lastSeen: null });
          scheduler.add(device, Date.now() + intervalMs);
        }
        if (onLan(device)) {
          states.observe(device.id, true, new Date());
          onObserved(device.id);
        }
      });
      const offRemoved = events.subscribe('DeviceRemoved', ({ deviceId }) => scheduler.forget(deviceId));
      return () => {
        offDiscovered();
        offRemoved();
      };
    },
  };
}
