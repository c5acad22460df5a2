/**
 * Public types of the `rest-api` plugin (the scanner's HTTP surface): the contract's Scan shape and
 * the scan events it publishes. The device domain's types (Device, Credential, the `devices`,
 * `credentials` and `deviceGate` services) belong to the `devices` plugin and are re-exported
 * here for plugins written against earlier releases.
 */
import type { Device } from '../devices/api.js';
export type * from '../devices/api.js';

export type ScanStatus = 'running' | 'completed' | 'cancelled' | 'failed' | 'interrupted';

export interface Scan {
  id: string;
  range: string;
  status: ScanStatus;
  total: number;
  scanned: number;
  found: number;
  startedAt: string;
  finishedAt?: string;
  error?: string;
}

export interface ScanProgressEvent {
  scanId: string;
  /** Addresses whose every probe is decided. */
  scanned: number;
  total: number;
  found: number;
  /** Of the whole scan, from probes decided: it moves while addresses wait out silence. */
  percent: number;
  /** TCP probes decided (answered, refused or timed out) of `probesTotal` (addresses × TCP ports). */
  probesDecided?: number;
  probesTotal?: number;
  /** Estimated seconds left (probing still to do and device reads waiting), null until measured. */
  etaSeconds?: number | null;
}

/** A scan found a device (new or known). */
export interface DeviceDiscoveredEvent {
  scanId: string;
  device: Readonly<Device>;
}

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    ScanStarted: Scan;
    ScanProgress: ScanProgressEvent;
    DeviceDiscovered: DeviceDiscoveredEvent;
    ScanCompleted: Scan;
    ScanCancelled: Scan;
    ScanFailed: Scan;
  }
}
