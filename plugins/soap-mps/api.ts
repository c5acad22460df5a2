/** Public types of the `soap-mps` plugin: the event it publishes for each request it answered. */

/** A request to MPSInterfaceService was answered. */
export interface SoapRequestCompletedEvent {
  /** The operation (`IsMachineConnected`, `Pull`, ...), `wsdl` for the WSDL, `unknown` when none was read. */
  operation: string;
  /** `ok`, `fault` (a SOAP Fault), `refused` (not authenticated or rate-limited), `error` (anything else). */
  outcome: 'ok' | 'fault' | 'refused' | 'error';
  durationSeconds: number;
}

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    SoapRequestCompleted: SoapRequestCompletedEvent;
  }
}
