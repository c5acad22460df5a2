/** A simulated session's idle bound: the device ends the session when the client has been silent `ms`. */
import type { Duplex } from 'node:stream';

export interface IdleClose {
  /** The client did something: the bound starts again. */
  touched(): void;
  stop(): void;
}

export function idleClose(socket: Duplex, ms: number, counters: { idleCloses: number }): IdleClose {
  let idle: NodeJS.Timeout | undefined;
  const touched = () => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      counters.idleCloses++;
      socket.end();
    }, ms);
  };
  touched();
  return { touched, stop: () => clearTimeout(idle) };
}
