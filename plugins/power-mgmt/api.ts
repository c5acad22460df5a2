/** Public types of the `power-mgmt` plugin. */
export interface PowerStateChangedEvent {
  deviceId: string;
  powerState: number;
}

export type { PowerService, PowerChangeResult, BootTarget, BootCheck } from './power-service.js';
export type { PowerAction } from './power-actions.js';

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    PowerStateChanged: PowerStateChangedEvent;
  }
  interface GatewayServices {
    /** Power changes for other plugins (IDE-R bulk boots), and the boot checks they add. */
    power: import('./power-service.js').PowerService;
  }
}
