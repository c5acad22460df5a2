/** Public types of the `activation` plugin: its records and the progress event it publishes. */
import type { ActivationProgressEvent } from './schemas.js';

export type { ActivationProfile, ActivationRecord, ActivationApproval, ActivationProgressEvent, ProvisioningDomain } from './schemas.js';

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    /** One step of an activation, deactivation or maintenance action (on the hub as `ActivationProgress`). */
    ActivationProgress: ActivationProgressEvent;
  }
}
