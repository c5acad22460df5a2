import type { EventBus } from '../../core/plugin-api.js';
import type { DeviceStatusChangedEvent } from 'amt-gateway/remote-monitor';

/** A tunnel that went down is remembered this long for the disconnect notification that follows it. */
const DOWN_LINGER_MS = 60_000;

/** The MPS address of devices connected over CIRA, from the cira plugin's tunnel events. */
export interface TunnelAddresses {
  /**
   * The address the device dialed, when `event` is about a CIRA connection: a connect while its
   * tunnel is up, or the disconnect that follows its tunnel going down. undefined: not over CIRA.
   */
  addressFor(event: DeviceStatusChangedEvent): string | undefined;
  close(): void;
}

interface Tunnel {
  address: string;
  /** When the tunnel went down; null while it is up. */
  downAt: number | null;
}

/**
 * Follows `CiraTunnelUp` / `CiraTunnelDown` on the bus, so soap-mps needs no dependency on cira (a
 * site without it simply publishes none). One entry per device with a tunnel, plus tunnels that went
 * down in the last minute; the down ones are pruned oldest first, so the map never outgrows the tunnels.
 */
export function createTunnelAddresses(events: EventBus, now: () => number = Date.now): TunnelAddresses {
  const tunnels = new Map<string, Tunnel>();
  /** Device ids whose tunnel went down, oldest first (Map order). */
  const down = new Map<string, number>();
  const prune = () => {
    const limit = now() - DOWN_LINGER_MS;
    for (const [deviceId, at] of down) {
      if (at > limit) break;
      down.delete(deviceId);
      if (tunnels.get(deviceId)?.downAt === at) tunnels.delete(deviceId);
    }
  };
  const unsubscribeUp = events.subscribe('CiraTunnelUp', ({ deviceId, mpsAddress }) => {
    down.delete(deviceId);
    tunnels.set(deviceId, { address: mpsAddress, downAt: null });
    prune();
  });
  const unsubscribeDown = events.subscribe('CiraTunnelDown', ({ deviceId, reason }) => {
    // The replacing tunnel of the same device is (or is about to be) up: the device stays connected over CIRA.
    if (reason === 'replaced') return;
    const tunnel = tunnels.get(deviceId);
    if (!tunnel || tunnel.downAt !== null) return;
    tunnel.downAt = now();
    down.delete(deviceId);
    down.set(deviceId, tunnel.downAt);
    prune();
  });
  return {
    addressFor(event) {
      prune();
      const tunnel = tunnels.get(event.deviceId);
      if (!tunnel) return undefined;
      if (event.online) return tunnel.downAt === null ? tunnel.address : undefined;
      if (tunnel.downAt !== null) {
        tunnels.delete(event.deviceId);
        down.delete(event.deviceId);
      }
      return tunnel.address;
    },
    close() {
      unsubscribeUp();
      unsubscribeDown();
      tunnels.clear();
      down.clear();
    },
  };
}
