/**
 * Presence: the paths report what they saw (`report`), the registry keeps it in `connections`, and
 * every write of the registry that flips `online` (a path's report, a scan's record, a patch) is
 * published here, once, as DeviceStatusChanged: the hub, the SOAP notifications and metrics follow
 * it, and `GET /api/devices`, SOAP `IsMachineConnected` and the monitor read the same `online`.
 */
import type { EventBus } from '../../../core/plugin-api.js';
import type { ManagedDeviceRegistry } from '../registry/device-registry.js';
import type { DevicePresence } from '../api.js';

export function createDevicePresence(registry: ManagedDeviceRegistry, events: EventBus): DevicePresence {
  registry.onOnlineChanged((device) => events.publish('DeviceStatusChanged', { deviceId: device.id, online: device.online, lastSeen: device.lastSeen }));
  return {
    async report(subject, path, seen) {
      const { device, onlineChanged } = await registry.setConnection(subject, path, seen);
      return { device, onlineChanged };
    },
    adopt: (subject) => registry.adopt(subject),
  };
}
