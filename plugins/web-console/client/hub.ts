/** The /scanHub connection of the session (@microsoft/signalr, WebSockets, the token as access_token). */
import { HttpTransportType, HubConnectionBuilder, HubConnectionState, LogLevel, type HubConnection } from '@microsoft/signalr';
import { useEffect, useRef } from 'preact/hooks';

import type { HubEvents } from './shapes.js';

export type { Device, HubEvents, Scan } from './shapes.js';

let connection: HubConnection | null = null;
let starting: Promise<void> | null = null;

export function connectHub(token: string): Promise<void> {
  disconnectHub();
  const hub = new HubConnectionBuilder()
    .withUrl('/scanHub', { accessTokenFactory: () => token, transport: HttpTransportType.WebSockets })
    .withAutomaticReconnect()
    .configureLogging(LogLevel.None)
    .build();
  connection = hub;
  starting = hub.start().catch(() => {
    // The pages still work without live updates; the next sign-in tries again.
  });
  return starting;
}

export function disconnectHub(): void {
  const hub = connection;
  connection = null;
  starting = null;
  if (hub && hub.state !== HubConnectionState.Disconnected) void hub.stop();
}

/** Resolves once the hub is connected (or failed to): start a scan after this so no event is missed. */
export const hubReady = () => starting ?? Promise.resolve();

export function useHubEvent<K extends keyof HubEvents>(name: K, handler: (payload: HubEvents[K]) => void): void {
  const latest = useRef(handler);
  latest.current = handler;
  useEffect(() => {
    const hub = connection;
    if (!hub) return;
    const listener = (payload: HubEvents[K]) => latest.current(payload);
    hub.on(name, listener);
    return () => hub.off(name, listener);
  }, [name]);
}
