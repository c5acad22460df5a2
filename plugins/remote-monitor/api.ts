/** Public types of the `remote-monitor` plugin: online state, provided as the `presence` service. */

/** A machine the gateway currently holds a live management connection to. */
export interface ConnectedMachine {
  deviceId: string;
  ipAddress: string;
  hostname: string | null;
  /** hostname.domain when the domain is known, else the hostname. */
  fqdn: string | null;
  uuid: string | null;
  /** Management ports that answered (16992 and/or 16993). */
  ports: number[];
  since: string;
  lastSeen: string;
}

export type { HardwareReport, MonitorEvent, MonitorSchedule, MonitorSummary, OnlineEntry } from './monitor-schemas.js';

/** Online state of every known device, as the `presence` service. */
export interface PresenceService {
  /** Connected machines now, in a stable order (by device id). */
  connected(): ConnectedMachine[];
  /** The connected machine whose hostname, FQDN, IP address or UUID equals `systemName` (case-insensitive). */
  findConnected(systemName: string): ConnectedMachine | undefined;
  /** The machine behind a device id, connected or not (for disconnect notifications). */
  describe(deviceId: string): ConnectedMachine | undefined;
}

/** Published by the devices plugin (presence); declared here, where it has always been, for the plugins that import it from here. */
export type { DeviceStatusChangedEvent } from '../devices/registry/device-schemas.js';
import type { DeviceStatusChangedEvent } from '../devices/registry/device-schemas.js';

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    DeviceStatusChanged: DeviceStatusChangedEvent;
  }
  interface GatewayServices {
    presence: PresenceService;
  }
}
