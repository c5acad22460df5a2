/** Public types of the `power-mgmt` plugin. */
export interface PowerStateChangedEvent {
  deviceId: string;
  powerState: number;
}

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    PowerStateChanged: PowerStateChangedEvent;
  }
}
