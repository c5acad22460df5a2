/**
 * The ways the gate may reach a device besides its address on the local network, each registered
 * once by the plugin that owns it (the path provider seam of the `deviceGate` service).
 */
import { HttpError } from '../../../core/plugin-api.js';
import type { Device, DevicePath, DevicePathOffer, DevicePathPurpose, DeviceRoute, DeviceService } from '../api.js';

/** A second path of one kind: which plugin holds it, which asked. */
export function pathClash(kind: string, holder: string, asker: string): HttpError {
  return new HttpError(500, 'GW_ERR_DEVICE_PATH_CLASH', `device path '${kind}' of plugin '${asker}' clashes with the one plugin '${holder}' registered; a path kind is registered once`);
}

export interface DevicePaths {
  register(path: DevicePath): void;
  kinds(): string[];
  /**
   * The first proven route a registered path offers for the device, else null (the local network).
   * An `unverified` offer is no path: nothing of the device's goes along it.
   */
  reach(device: Readonly<Device>, service: DeviceService, purpose: 'operation' | 'session', only?: string): Promise<{ kind: string; route: DeviceRoute } | null>;
  /** What path `kind` offers, proven or not: only for a proof of identity, which sends nothing of the device's. */
  offer(device: Readonly<Device>, kind: string, purpose: DevicePathPurpose): Promise<DevicePathOffer | null>;
}

export function createDevicePaths(): DevicePaths {
  const paths: DevicePath[] = [];
  return {
    register(path) {
      const held = paths.find((p) => p.kind === path.kind);
      if (held) throw pathClash(path.kind, held.plugin, path.plugin);
      paths.push(path);
    },
    kinds: () => [...paths.map((p) => p.kind), 'lan'],
    async reach(device, service, purpose, only) {
      for (const path of paths) {
        if (only !== undefined && path.kind !== only) continue;
        const offer = await path.reach(device, service, purpose);
        if (offer?.identity === 'proven') {
          const { identity: _identity, ...route } = offer;
          return { kind: path.kind, route: route as DeviceRoute };
        }
      }
      return null;
    },
    async offer(device, kind, purpose) {
      const path = paths.find((p) => p.kind === kind);
      return path ? path.reach(device, 'management', purpose) : null;
    },
  };
}
