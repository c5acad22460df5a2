/**
 * Public types of the `rest-api` plugin (the scanner's HTTP surface): the contract's Scan shape and
 * the scan events it publishes. The device domain's types (Device, Credential, the `devices`,
 * `credentials` and `deviceAccess` services) belong to the `devices` plugin and are re-exported
 * here for plugins written against earlier releases.
 */
export type * from '../devices/api.js';

export type { DeviceDiscoveredEvent, Scan, ScanProgressEvent, ScanStatus } from './scans/scan-schemas.js';
import type { DeviceDiscoveredEvent, Scan, ScanProgressEvent } from './scans/scan-schemas.js';

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
