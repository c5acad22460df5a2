import type { Outbox } from './outbox.js';

/**
 * After a run, the next waits at least this many times as long as the run took: a run's cost grows
 * with the clients it writes to, so with many clients the flushes space out by themselves (and
 * batch more), keeping writes to about a fifth of the event loop, while a hub with a few clients
 * still flushes every `minIntervalMs`.
 */
const GAP_PER_RUN_TIME = 4;
/** ... but records never wait longer than this for the gap to pass (ScanProgress goes out every 100 ms). */
const MAX_GAP_MS = 50;

/**
 * Flushes the outboxes of one hub together, at most once per `minIntervalMs` (or longer with many
 * clients, see {@link GAP_PER_RUN_TIME}).
 *
 * The bus publishes events one event-loop turn apiece (each discovery follows its own device read),
 * so flushing every turn would write each record to each client on its own: one system call per
 * record per client. Here the first record after a quiet spell still goes out on the next turn,
 * and while records keep coming each client gets what gathered since the last flush as one frame.
 */
export class FlushScheduler {
  private dirty = new Set<Outbox>();
  /** Cancels the scheduled run; set while one is scheduled. */
  private cancelRun: (() => void) | undefined;
  private nextRunAt = -Infinity;
  private lastBatch: readonly Buffer[] = [];
  private lastJoined: Buffer | undefined;

  constructor(private readonly minIntervalMs = 0) {}

  /** Flushes `outbox` with the others at the next run. */
  request(outbox: Outbox): void {
    this.dirty.add(outbox);
    if (this.cancelRun !== undefined) return;
    const wait = this.nextRunAt - performance.now();
    if (wait > 0) {
      const timer = setTimeout(this.run, wait);
      this.cancelRun = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(this.run);
      this.cancelRun = () => clearImmediate(immediate);
    }
  }

  /**
   * The records of a batch as one frame. Clients mostly receive the same events, so when a batch
   * holds the same records as the one before it, the frame joined for that one is handed out again:
   * one copy shared by every socket instead of one per client.
   */
  join(batch: readonly Buffer[], size: number): Buffer {
    if (batch.length === 1) return batch[0]!;
    if (this.lastJoined === undefined || !sameRecords(batch, this.lastBatch)) {
      this.lastBatch = batch;
      this.lastJoined = Buffer.concat(batch, size);
    }
    return this.lastJoined;
  }

  /** Drops a pending run (every outbox has been cleared). */
  dispose(): void {
    this.cancelRun?.();
    this.cancelRun = undefined;
    this.dirty.clear();
  }

  private readonly run = () => {
    this.cancelRun = undefined;
    const startedAt = performance.now();
    const dirty = this.dirty;
    this.dirty = new Set();
    for (const outbox of dirty) outbox.flush();
    this.lastBatch = [];
    this.lastJoined = undefined;
    const endedAt = performance.now();
    this.nextRunAt = Math.max(startedAt + this.minIntervalMs, endedAt + Math.min((endedAt - startedAt) * GAP_PER_RUN_TIME, MAX_GAP_MS));
  };
}

function sameRecords(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
