/** Events of the `redirection` plugin that other plugins see (the hub forwards IDE-R progress). */

/** An open IDE-R session's progress, about once a second while it serves (and once at its end). */
export interface IderSessionProgressEvent {
  sessionId: string;
  deviceId: string;
  /** Image bytes served so far. */
  bytesServed: number;
  /** Every byte sent to the device (messages and data). */
  bytesToDevice: number;
  /** ATAPI commands the device sent. */
  commands: number;
  /** Set on the last event of a session: why it ended. */
  ended?: string;
}

declare module '../../core/plugin-api.js' {
  interface GatewayEvents {
    IderSessionProgress: IderSessionProgressEvent;
  }
}
