/**
 * Public types of the `metrics` plugin: the remote console events it counts. The redirection plugin
 * (or any plugin that opens console sessions) publishes them; nothing needs the metrics plugin enabled.
 */

export type RemoteConsoleMode = 'kvm' | 'sol' | 'ider';

/** A remote console session (the WebSocket to the device) opened. */
export interface RemoteConsoleSessionOpenedEvent {
  mode: RemoteConsoleMode;
}

/** A remote console session ended; bytes are payload bytes relayed each way over its lifetime. */
export interface RemoteConsoleSessionClosedEvent {
  mode: RemoteConsoleMode;
  bytesToDevice: number;
  bytesFromDevice: number;
  durationSeconds: number;
}

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    RemoteConsoleSessionOpened: RemoteConsoleSessionOpenedEvent;
    RemoteConsoleSessionClosed: RemoteConsoleSessionClosedEvent;
  }
}
