/** Public types of the `power-mgmt` plugin. */
export type { PowerStateChangedEvent } from './power-schemas.js';
import type { PowerStateChangedEvent } from './power-schemas.js';

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    PowerStateChanged: PowerStateChangedEvent;
  }
}
