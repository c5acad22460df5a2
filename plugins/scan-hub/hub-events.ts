import type { GatewayEvents } from '../../core/plugin-api.js';
import { HUB_EVENT_COMPONENTS, type HubEvents } from './hub-event-shapes.js';

/** The bus events the hub forwards to clients, each as the client method of the same name. */
export const HUB_EVENTS = Object.keys(HUB_EVENT_COMPONENTS) as Array<keyof HubEvents>;

export type HubEventName = keyof HubEvents;

/** Whether A and B are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The bus's payload types of the hub's events are the shapes the console reads (hub-event-shapes.ts); compiles only while they are. */
const SAME_SHAPES: { [K in HubEventName]: Same<GatewayEvents[K], HubEvents[K]> } = {
  ScanStarted: true,
  ScanProgress: true,
  DeviceDiscovered: true,
  ScanCompleted: true,
  ScanCancelled: true,
  ScanFailed: true,
  DeviceStatusChanged: true,
  PowerStateChanged: true,
  ActivationProgress: true,
  IderSessionProgress: true,
};
void SAME_SHAPES;

/** Events that belong to one scan, so that SubscribeScan narrows them. */
export const SCAN_EVENTS: ReadonlySet<HubEventName> = new Set(['ScanStarted', 'ScanProgress', 'DeviceDiscovered', 'ScanCompleted', 'ScanCancelled', 'ScanFailed']);

/** Events after which a scan sends nothing more. */
export const TERMINAL_SCAN_EVENTS: ReadonlySet<HubEventName> = new Set(['ScanCompleted', 'ScanCancelled', 'ScanFailed']);

const SCAN_READERS = ['scan:run', 'devices:read'];

/** A client receives an event when it holds any one of these permissions. */
export const EVENT_PERMISSIONS: Readonly<Record<HubEventName, readonly string[]>> = {
  ScanStarted: SCAN_READERS,
  ScanProgress: SCAN_READERS,
  DeviceDiscovered: SCAN_READERS,
  ScanCompleted: SCAN_READERS,
  ScanCancelled: SCAN_READERS,
  ScanFailed: SCAN_READERS,
  DeviceStatusChanged: ['monitor:read', 'devices:read'],
  PowerStateChanged: ['power:read', 'power:control'],
  ActivationProgress: ['activation:read', 'activation:manage'],
  IderSessionProgress: ['remote:connect'],
};

/** The events a user with these permissions may receive. */
export function permittedEvents(permissions: readonly string[]): Set<HubEventName> {
  const held = new Set(permissions);
  return new Set(HUB_EVENTS.filter((event) => EVENT_PERMISSIONS[event].some((p) => held.has(p))));
}

/** The scan an event belongs to, if it is a scan event. */
export function scanIdOf(event: HubEventName, payload: GatewayEvents[HubEventName]): string | undefined {
  if (!SCAN_EVENTS.has(event)) return undefined;
  const p = payload as { id?: unknown; scanId?: unknown };
  const id = event === 'ScanProgress' || event === 'DeviceDiscovered' ? p.scanId : p.id;
  return typeof id === 'string' ? id : undefined;
}

/** One event ready for the clients: encoded once, shared by every connection that receives it. */
export interface OutgoingEvent {
  name: HubEventName;
  frame: Buffer;
  scanId: string | undefined;
  /** Frames with the same key replace each other in a slow client's outbox (ScanProgress per scan). */
  coalesceKey: string | undefined;
}
