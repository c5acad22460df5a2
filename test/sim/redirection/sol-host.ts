/**
 * The host side of a simulated device's serial console: its COM port's control lines, which the
 * device reports in a SOL session (0x29) whenever they change, and how talkative the device is.
 * Bits as amtterm's `RedirectionConstants.h` names them.
 */

/** Control bits (byte 8 of 0x29). */
export const LINE_CONTROL = { rts: 1, dtr: 2, break: 4 } as const;
/** Status bits (byte 9 of 0x29). */
export const LINE_STATUS = { txOverflow: 1, loopback: 2, systemPower: 4, rxFlushTimeout: 8, testMode: 16 } as const;

const RUNNING = { control: LINE_CONTROL.rts | LINE_CONTROL.dtr, status: LINE_STATUS.systemPower };

export interface SolHostCounters {
  /** 0x29 messages sent (the lines at session start, then every change). */
  linesSent: number;
  /** 0x25 answers to the client's keep-alive pings (0x24), and unasked ones. */
  pongsSent: number;
  /** 0x23 answers to the client's end-SOL (0x22), and unasked ones. */
  endRepliesSent: number;
}

export class SolHost {
  control: number = RUNNING.control;
  status: number = RUNNING.status;
  /**
   * A device that also sends, between its data messages, every other message type a device may
   * send in a SOL session: line reports, heartbeats, and answers to requests it never got (a late
   * pong, an end-SOL reply). A test control: a client must skip them all.
   */
  chatter = false;
  /**
   * A device that breaks the framing: a message of a type no device sends (0x77, whose size no
   * client can know) in the same write as its settings reply. A test control.
   */
  unknownMessageAtStart = false;
  readonly counters: SolHostCounters = { linesSent: 0, pongsSent: 0, endRepliesSent: 0 };
  #listeners = new Set<() => void>();

  /** Sets the lines; open SOL sessions are told when they change. */
  setLines(control: number, status: number): void {
    if (control === this.control && status === this.status) return;
    this.control = control;
    this.status = status;
    for (const listener of this.#listeners) listener();
  }

  /** The host powered on or off: its UART comes up with RTS and DTR, or goes quiet. */
  power(on: boolean): void {
    this.setLines(on ? RUNNING.control : 0, on ? RUNNING.status : 0);
  }

  /** A reset: the firmware drops the lines while it reinitialises the UART, then raises them. */
  reset(): void {
    this.setLines(0, LINE_STATUS.systemPower);
    this.setLines(RUNNING.control, RUNNING.status);
  }

  /** Calls `listener` at every change; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}
