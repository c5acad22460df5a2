/**
 * How many operations may wait on devices at once, and whose turn it is at each device. A device
 * read spends nearly all its time waiting on the device (AMT answers each request after 50-400 ms),
 * so it is bounded by the sockets the gateway can hold, not by worker slots meant for CPU work; and
 * a device never has two of the gateway's connections at once, whichever paths (a scan, power,
 * monitor reads, diagnostics) want it: AMT firmware handles few connections and fragile ones worse.
 *
 * The device gate (device-gate.ts) calls `run` around every task that connects, for every path.
 */

export interface DeviceTurns {
  /** Runs `work` once no other operation is at `deviceKey` (the device's address) and a socket is free. */
  run<T>(deviceKey: string, work: () => Promise<T>): Promise<T>;
  /** Operations that may wait on devices at once. */
  readonly limit: number;
  /** Sets the limit (at start, before any operation). */
  resize(limit: number): void;
  /** Operations running now. */
  readonly active: number;
  /** Operations waiting for their device's turn or a socket. */
  readonly waiting: number;
}

export function createDeviceTurns(limit: number): DeviceTurns {
  let bound = Math.max(1, Math.floor(limit));
  /** Devices with an operation running; each holds the queue of those waiting for that device. */
  const busy = new Map<string, Array<() => void>>();
  const sockets: Array<() => void> = [];
  let socketHead = 0;
  let active = 0;
  let waitingForDevice = 0;

  const takeDevice = (key: string): Promise<void> | undefined => {
    const queue = busy.get(key);
    if (!queue) {
      busy.set(key, []);
      return undefined;
    }
    waitingForDevice++;
    return new Promise<void>((resolve) => queue.push(resolve)).finally(() => void waitingForDevice--);
  };
  const releaseDevice = (key: string): void => {
    const queue = busy.get(key)!;
    const next = queue.shift();
    if (next) next();
    else busy.delete(key);
  };
  const takeSocket = (): Promise<void> | undefined => {
    if (active < bound) {
      active++;
      return undefined;
    }
    return new Promise<void>((resolve) => sockets.push(resolve));
  };
  const releaseSocket = (): void => {
    // A finishing operation hands its socket straight to the next waiter, so `active` never overshoots.
    if (socketHead < sockets.length) {
      const next = sockets[socketHead++]!;
      if (socketHead > 1024 && socketHead * 2 > sockets.length) {
        sockets.splice(0, socketHead);
        socketHead = 0;
      }
      next();
    } else active--;
  };

  return {
    get limit() {
      return bound;
    },
    resize(next) {
      // Only before use (a deprecated option read at start): a running operation keeps its socket.
      bound = Math.max(1, Math.floor(next));
    },
    async run(deviceKey, work) {
      // The device's turn first: an operation queued behind its device holds no socket meanwhile.
      await takeDevice(deviceKey);
      try {
        await takeSocket();
        try {
          return await work();
        } finally {
          releaseSocket();
        }
      } finally {
        releaseDevice(deviceKey);
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return waitingForDevice + (sockets.length - socketHead);
    },
  };
}
