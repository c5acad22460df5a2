/**
 * Where online-state changes go: DeviceStatusChanged on the bus and the `online` flag of the device
 * list (so `GET /api/devices?online=` agrees with the monitor). Also what scans tell the monitor: a
 * device a scan found answering is online now, and a removed device is no longer tracked.
 */
import type { EventBus, Logger } from '../../core/plugin-api.js';
import type { Device, DeviceRegistry } from 'amt-gateway/devices';
import type { PresenceStates, StatusChange } from './presence-states.js';
import type { SweepScheduler } from './sweep-scheduler.js';

export interface StatusFeed {
  /** Publishes a change, and brings the device list in line with the monitor's state. */
  onObserved(deviceId: string, change: StatusChange | null): void;
  /** Subscribes to DeviceDiscovered and DeviceRemoved; returns the unsubscriber. */
  listen(scheduler: SweepScheduler, intervalMs: number): () => void;
}

export function createStatusFeed(events: EventBus, devices: DeviceRegistry, states: PresenceStates, logger: Logger): StatusFeed {
  function onObserved(deviceId: string, change: StatusChange | null): void {
    const device = devices.get(deviceId);
    // A CIRA tunnel keeps the device online whatever the local network says; its plugin publishes its flips.
    const tunnelled = device?.connections?.includes('cira') ?? false;
    if (change && !tunnelled) events.publish('DeviceStatusChanged', { deviceId, online: change.online, lastSeen: change.lastSeen });
    const state = states.get(deviceId);
    if (!device || !state) return;
    const lan = device.connections ? device.connections.includes('lan') : device.online;
    if (lan === state.online) return;
    const patch: Partial<Device> = { online: state.online, ...(state.lastSeen ? { lastSeen: state.lastSeen } : {}) };
    devices.update(deviceId, patch).catch((err: Error) => logger.warn('could not update the online flag of a device', { deviceId, error: err.message }));
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
        if (device.online) onObserved(device.id, states.observe(device.id, true, new Date()));
      });
      const offRemoved = events.subscribe('DeviceRemoved', ({ deviceId }) => scheduler.forget(deviceId));
      return () => {
        offDiscovered();
        offRemoved();
      };
    },
  };
}
