/**
 * The ways the gate may reach a device besides its address on the local network, each registered
 * once by the plugin that owns it (the extension point of the `deviceGate` service).
 */
import { HttpError } from '../../../core/plugin-api.js';
import type { Device, DevicePath, DeviceRoute, DeviceRouter, DeviceService } from '../api.js';

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
  /** The deprecated `deviceAccess.setRouter`: the router as the path kind `router`, replaced by each call. */
  setLegacyRouter(router: DeviceRouter): void;
}

const LEGACY_KIND = 'router';

export function createDevicePaths(): DevicePaths {
  const paths: DevicePath[] = [];
  const register = (path: DevicePath): void => {
    const held = paths.find((p) => p.kind === path.kind);
    if (held) throw pathClash(path.kind, held.plugin, path.plugin);
    paths.push(path);
  };
  return {
    register,
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
    setLegacyRouter(router) {
      const at = paths.findIndex((p) => p.kind === LEGACY_KIND);
      if (at >= 0) paths.splice(at, 1);
      register({
        kind: LEGACY_KIND,
        plugin: 'deviceAccess.setRouter (deprecated)',
        reach: async (device, service) => {
          const route = await router(device, service);
          return route ? { ...route, identity: 'proven' } : null;
        },
      });
    },
  };
}
