/** The manifest a fleet prints: what runs where, without passwords (devices name theirs `default` or `alt`). */
import type { SimDevice } from './sim-device.js';

export interface DeviceManifest {
  index: number;
  address: string;
  hostname: string;
  domain: string;
  uuid: string;
  firmwareVersion: string;
  provisioningState: 0 | 1 | 2;
  provisioningMode: number;
  powerState: number;
  tls: boolean;
  ports: { http: number | null; https: number | null; rmcp: number | null };
  username: string;
  /** Which of the fleet's passwords the device uses. */
  password: 'default' | 'alt';
  /** SHA-256 fingerprint of the TLS certificate (TLS devices). */
  certificateFingerprint: string | null;
  /** Dials in over CIRA. */
  cira: boolean;
}

export interface FleetManifest {
  count: number;
  firstAddress: string | null;
  lastAddress: string | null;
  ports: { http: number; https: number; rmcp: number | null };
  tlsDevices: number;
  altPasswordDevices: number;
  ciraDevices: number;
  provisioning: { pre: number; in: number; post: number };
  startedAt: string;
  startupMs: number;
  devices: DeviceManifest[];
}

export function deviceManifest(device: SimDevice): DeviceManifest {
  const c = device.config;
  return {
    index: c.index,
    address: c.address,
    hostname: device.state.hostname,
    domain: device.state.domain,
    uuid: c.uuid,
    firmwareVersion: c.firmwareVersion,
    provisioningState: c.provisioningState,
    provisioningMode: c.provisioningMode,
    powerState: device.state.powerState,
    tls: c.tls,
    ports: { http: c.httpPort, https: c.httpsPort, rmcp: c.rmcpPort },
    username: c.username,
    password: c.passwordId,
    certificateFingerprint: device.certificateFingerprint,
    cira: c.cira !== null,
  };
}

export function fleetManifest(devices: readonly SimDevice[], ports: FleetManifest['ports'], startedAt: Date, startupMs: number): FleetManifest {
  const entries = devices.map(deviceManifest);
  return {
    count: entries.length,
    firstAddress: entries[0]?.address ?? null,
    lastAddress: entries.at(-1)?.address ?? null,
    ports,
    tlsDevices: entries.filter((d) => d.tls).length,
    altPasswordDevices: entries.filter((d) => d.password === 'alt').length,
    ciraDevices: entries.filter((d) => d.cira).length,
    provisioning: {
      pre: entries.filter((d) => d.provisioningState === 0).length,
      in: entries.filter((d) => d.provisioningState === 1).length,
      post: entries.filter((d) => d.provisioningState === 2).length,
    },
    startedAt: startedAt.toISOString(),
    startupMs,
    devices: entries,
  };
}
