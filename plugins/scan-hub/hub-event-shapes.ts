/**
 * The events /scanHub sends and their payloads' types: the shapes of the plugins that publish them
 * (the hub sends a bus event's payload as it is). Types and plain data only, so that the console can
 * import them. Each payload is a component of the OpenAPI document (`HUB_EVENT_COMPONENTS`), where
 * a client finds its schema.
 */
import type { DeviceStatusChangedEvent } from '../devices/registry/device-schemas.js';
import type { PowerStateChangedEvent } from '../power-mgmt/power-schemas.js';
import type { ScanEvents } from '../rest-api/scans/scan-schemas.js';
import type { ActivationProgressEvent } from '../activation/schemas.js';
import type { IderSessionProgressEvent } from '../redirection/schemas.js';

export interface HubEvents extends ScanEvents {
  DeviceStatusChanged: DeviceStatusChangedEvent;
  PowerStateChanged: PowerStateChangedEvent;
  ActivationProgress: ActivationProgressEvent;
  IderSessionProgress: IderSessionProgressEvent;
}

/** The OpenAPI component (`#/components/schemas/<name>`) of each event's payload. */
export const HUB_EVENT_COMPONENTS: Readonly<Record<keyof HubEvents, string>> = {
  ScanStarted: 'Scan',
  ScanProgress: 'ScanProgressEvent',
  DeviceDiscovered: 'DeviceDiscoveredEvent',
  ScanCompleted: 'Scan',
  ScanCancelled: 'Scan',
  ScanFailed: 'Scan',
  DeviceStatusChanged: 'DeviceStatusChangedEvent',
  PowerStateChanged: 'PowerStateChangedEvent',
  ActivationProgress: 'ActivationProgressEvent',
  IderSessionProgress: 'IderSessionProgressEvent',
};
