/**
 * A device's way in through its tunnel, as device tasks use it: every connection is one APF
 * channel to the device's management port. The first channel can be opened ahead, when the route is
 * handed out, so that its APF open round trip (a WAN round trip for a real device) overlaps the
 * sign-in planning and task set-up that come before the task connects; unused, it is closed soon.
 */
import type { Duplex } from 'node:stream';
import type { DeviceChannel } from '../../core/plugin-api.js';
import type { CiraService } from './api.js';

/** A channel opened ahead and not taken within this is closed (AMT serves few connections at once). */
const SPARE_MS = 2_000;

export function createTunnelChannel(cira: CiraService, deviceId: string, uuid: string, port: number, openAhead: boolean): DeviceChannel {
  const open = (signal?: AbortSignal): Promise<Duplex> => cira.openChannel(deviceId, port, signal ? { signal } : {});
  let spare: Promise<Duplex> | undefined;
  let timer: NodeJS.Timeout | undefined;
  if (openAhead) {
    spare = open();
    spare.then(
      (channel) => channel.on('error', () => undefined),
      () => undefined,
    );
    timer = setTimeout(() => {
      const unused = spare;
      spare = undefined;
      void unused?.then((channel) => channel.destroy(), () => undefined);
    }, SPARE_MS).unref();
  }
  return {
    key: `cira:${uuid}:${port}`,
    connect(signal) {
      const ahead = spare;
      spare = undefined;
      clearTimeout(timer);
      if (!ahead) return open(signal);
      return ahead.then(
        (channel) => (channel.destroyed ? open(signal) : channel),
        () => open(signal),
      );
    },
  };
}
