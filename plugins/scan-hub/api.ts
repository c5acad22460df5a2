/** Public types of the `scan-hub` plugin: the event it publishes when a hub connection opens or closes. */

export interface HubConnectionsChangedEvent {
  change: 'opened' | 'closed';
  /** Connections open after the change. */
  open: number;
}

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    HubConnectionsChanged: HubConnectionsChangedEvent;
  }
}
