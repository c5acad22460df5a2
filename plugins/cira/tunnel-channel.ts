/**
 * A device's way in through its tunnel, as device tasks use it: every connection is one APF
 * channel to the device's management port. The first channel can be opened ahead, when the route is
 * handed out, so that its APF open round trip (a WAN round trip for a real device) overlaps the
 * sign-in planning and task set-up that come before the task connects; unused, it is closed soon.
 */
import type { Duplex } from 'node:stream';
import type { DeviceChannel } from 'amt-gateway/devices';
import type { CiraConnection, CiraService } from './api.js';

/** A channel opened ahead and not taken within this is closed (AMT serves few connections at once). */
const SPARE_MS = 2_000;

/** Channels opened ahead count against the tunnelled operations' bound until taken or closed. */
export interface AheadBudget {
  /** A channel may be opened ahead now (and is counted); false: the bound is full. */
  take(): boolean;
  give(): void;
}

/**
 * What the Digest nonce cache knows the device's port by: one tunnel connection, not the UUID alone,
 * so that a nonce one peer issued is never signed for another that took the UUID's tunnel over
 * (each new tunnel challenges afresh; a Digest response goes only to the peer that asked for it).
 */
export function tunnelKey(connection: Pick<CiraConnection, 'uuid' | 'remotePort' | 'connectedAt'>): string {
  return `${connection.uuid}@${Date.parse(connection.connectedAt)}:${connection.remotePort}`;
}

/** `windowBytes`: the receive window the device is given on each channel (default the plugin's `channelWindowBytes`). */
export function createTunnelChannel(
  cira: CiraService,
  deviceId: string,
  connection: Pick<CiraConnection, 'uuid' | 'remotePort' | 'connectedAt'>,
  port: number,
  ahead: AheadBudget | null,
  windowBytes?: number,
): DeviceChannel {
  const open = (signal?: AbortSignal): Promise<Duplex> => cira.openChannel(deviceId, port, { ...(signal ? { signal } : {}), ...(windowBytes ? { windowBytes } : {}) });
  let spare: Promise<Duplex> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let counted = false;
  const release = () => {
    if (counted) ahead?.give();
    counted = false;
  };
  const closeSpare = (): void => {
    const unused = spare;
    spare = undefined;
    clearTimeout(timer);
    void unused?.then((channel) => channel.destroy(), () => undefined);
  };
  if (ahead?.take()) {
    counted = true;
    spare = open();
    spare.then(
      (channel) => {
        channel.on('error', () => undefined);
        channel.once('close', release);
      },
      release,
    );
    timer = setTimeout(() => closeSpare(), SPARE_MS).unref();
  }
  return {
    key: `cira:${tunnelKey(connection)}:${port}`,
    release: closeSpare,
    connect(signal) {
      const opened = spare;
      spare = undefined;
      clearTimeout(timer);
      // Taken by the operation, which the bound counts from now on.
      release();
      if (!opened) return open(signal);
      return opened.then(
        (channel) => (channel.destroyed ? open(signal) : channel),
        () => open(signal),
      );
    },
  };
}
