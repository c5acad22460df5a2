/** Events of the `redirection` plugin that other plugins see (the hub forwards IDE-R progress). */
import type { IderSessionProgressEvent } from './schemas.js';

export type { IderSessionProgressEvent } from './schemas.js';

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    IderSessionProgress: IderSessionProgressEvent;
  }
}
