/**
 * Public types of presence, the one place where what each path saw of a device becomes its
 * `connections`, `online`, `lastSeen` and DeviceStatusChanged. Provided as the `devicePresence` service.
 */
import type { Device, DeviceConnection } from '../../api.js';

/** Which device a path saw: by id, or by the UUID a tunnel named (and the address it came from). */
export type PresenceSubject = { deviceId: string } | { uuid: string; ipAddress: string };

/**
 * What each way of reaching devices reports, and only that: the LAN monitor whether the device
 * answered on the local network, the CIRA plugin whether a verified tunnel is up. Scans report
 * through the device record they write (found answering: on the LAN).
 */
export interface DevicePresence {
  /**
   * One path's sighting: `seen` true sets the path in `connections` (and `lastSeen`), false clears it.
   * The device is online while any path has it; a flip of `online` is published as DeviceStatusChanged.
   * @returns the device (undefined when clearing on an unknown one) and whether `online` flipped.
   */
  report(subject: PresenceSubject, path: DeviceConnection, seen: boolean): Promise<{ device: Readonly<Device> | undefined; onlineChanged: boolean }>;
  /**
   * The device a tunnel names by UUID, created at `ipAddress` when unknown: offline (no connection)
   * until a path reports it.
   */
  adopt(subject: { uuid: string; ipAddress: string }): Promise<{ device: Readonly<Device>; created: boolean }>;
}

declare module '../../../../core/plugin-api.js' {
  interface GatewayServices {
    devicePresence: DevicePresence;
  }
}
