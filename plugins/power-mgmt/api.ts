/** Public types of the `power-mgmt` plugin. */
export type { PowerStateChangedEvent } from './power-schemas.js';
import type { PowerStateChangedEvent } from './power-schemas.js';

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
