/**
 * Public types of the `rest-api` plugin (the scanner's HTTP surface): the contract's Scan shape and
 * the scan events it publishes. The device domain's types (Device, Credential, the `devices`,
 * `credentials` and `deviceGate` services) belong to the `devices` plugin and are re-exported
 * here for plugins written against earlier releases.
 */
export type * from '../devices/api.js';

export type { DeviceDiscoveredEvent, Scan, ScanEvents, ScanProgressEvent, ScanStatus } from './scans/scan-schemas.js';
import type { ScanEvents } from './scans/scan-schemas.js';

declare module '../../core/plugin-api.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the scan events join the bus's
  interface GatewayEvents extends ScanEvents {}
}
