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

export interface OnlineEntry {
  deviceId: string;
  ipAddress: string;
  hostname: string | null;
  online: boolean;
  since: string | null;
  lastSeen: string | null;
  /** Set when the monitor does not probe the device, e.g. `outside-allowed-networks`. */
  notMonitored?: 'outside-allowed-networks';
}

/** Online state of every known device, as the `presence` service. */
export interface PresenceService {
  /** Connected machines now, in a stable order (by device id). */
  connected(): ConnectedMachine[];
  /** The connected machine whose hostname, FQDN, IP address or UUID equals `systemName` (case-insensitive). */
  findConnected(systemName: string): ConnectedMachine | undefined;
  /** The machine behind a device id, connected or not (for disconnect notifications). */
  describe(deviceId: string): ConnectedMachine | undefined;
}

export interface DeviceStatusChangedEvent {
  deviceId: string;
  online: boolean;
  lastSeen: string | null;
}

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    DeviceStatusChanged: DeviceStatusChangedEvent;
  }
  interface GatewayServices {
    presence: PresenceService;
  }
}
