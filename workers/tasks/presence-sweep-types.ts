/**
 * Input and output of the `presence-sweep` task (the online monitor's probe of a batch of known
 * devices), registered in {@link WorkerTasks} so that `pool.run('presence-sweep', ...)` is typed.
 */

/** One known device to probe. */
export interface PresenceSweepTarget {
  address: string;
  /** Management ports tried by TCP connect when the device does not answer the presence ping. */
  tcpPorts: number[];
}

export interface PresenceSweepInput {
  targets: PresenceSweepTarget[];
  /** UDP port of the presence ping (623 on real devices); 0 skips the ping. */
  rmcpPort: number;
  /** Ping pacing: sub-batches of `batchSize` (50) every `batchGapMs` (10), listening `windowMs` (500) after the last. */
  rmcp?: { batchSize?: number; batchGapMs?: number; windowMs?: number; recvBufferBytes?: number };
  /** TCP connect bound per port of the fallback (default 1,000 ms). */
  connectTimeoutMs?: number;
  /** Devices checked by TCP at once (default 64). */
  tcpConcurrency?: number;
  /** The device gate's turn table (its shared memory): a device is connected to only within its turn. */
  turns?: SharedArrayBuffer;
}

/** How one device answered. */
export interface PresenceSweepResult {
  address: string;
  alive: boolean;
  /** `rmcp`: it answered the presence ping; `tcp`: a management port accepted a connection. */
  via: 'rmcp' | 'tcp' | null;
  /** The management port the pong advertised or the TCP port that accepted; null when unknown. */
  port: number | null;
  /**
   * Silent to the ping, and the gateway was talking to it (its turn held) all the time the check
   * could wait: nothing is known of it this time.
   */
  busy?: true;
}

export interface PresenceSweepOutput {
  /** One result per distinct target address, in target order. */
  results: PresenceSweepResult[];
  /** Devices that answered the ping. */
  pongs: number;
  /** Devices checked by TCP connect. */
  tcpChecked: number;
  cancelled: boolean;
  elapsedMs: number;
}

declare module '../task-api.js' {
  interface WorkerTasks {
    'presence-sweep': { input: PresenceSweepInput; output: PresenceSweepOutput; progress: never };
  }
}
