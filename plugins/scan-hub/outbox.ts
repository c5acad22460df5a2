import type { FlushScheduler } from './flush-scheduler.js';

/** Where an outbox writes: the part of a `ws` WebSocket it needs. */
export interface FrameSink {
  /** Bytes handed to the socket but not yet written to the kernel. */
  readonly bufferedAmount: number;
  /** Sends one text frame; `written` runs once the frame has left the process (or failed). */
  send(frame: Buffer, written: (err?: Error) => void): void;
}

export interface OutboxLimits {
  /** Frames are handed to the sink only while its bufferedAmount is below this; also the largest batch. */
  socketHighWaterBytes: number;
  maxQueuedBytes: number;
  maxQueuedMessages: number;
}

/** A record pushed with a coalescing key; `record` is null once a newer one replaced it or it was sent. */
interface KeyedRecord {
  record: Buffer | null;
  key: string;
}

/**
 * A per-connection send queue that never blocks the sender and never grows without bound.
 *
 * Records wait here until the next flush (see {@link FlushScheduler}), which hands them to the
 * socket in batches, each batch one frame, while the socket keeps up. Once the socket holds
 * `socketHighWaterBytes` unsent, records stay here; a record pushed with a coalescing key replaces
 * the waiting record with the same key (the latest wins, and it moves to the end so that it never
 * overtakes records queued before it). Records without a key are never dropped: when the waiting
 * records exceed the limits, the outbox empties itself, refuses further records and calls
 * `onOverflow` once.
 */
export class Outbox {
  // Records without a key (nearly all) are queued as they are: no wrapper allocated per record per client.
  private queue: Array<Buffer | KeyedRecord> = [];
  private head = 0;
  private readonly byKey = new Map<string, KeyedRecord>();
  private bytes = 0;
  private count = 0;
  private overflowed = false;

  constructor(
    private readonly sink: FrameSink,
    private readonly limits: OutboxLimits,
    private readonly scheduler: FlushScheduler,
    private readonly onOverflow: () => void,
  ) {}

  /** Bytes waiting in the outbox (not yet handed to the socket). */
  get queuedBytes(): number {
    return this.bytes;
  }

  /** Records waiting in the outbox. */
  get queuedMessages(): number {
    return this.count;
  }

  /** Queues a record; returns false when the outbox has overflowed and took nothing. */
  push(record: Buffer, key?: string): boolean {
    if (this.overflowed) return false;
    if (key === undefined) {
      this.queue.push(record);
    } else {
      const stale = this.byKey.get(key);
      if (stale) this.discard(stale);
      const keyed: KeyedRecord = { record, key };
      this.queue.push(keyed);
      this.byKey.set(key, keyed);
    }
    this.bytes += record.length;
    this.count += 1;
    // A burst bigger than a batch goes to the socket now, so that the kernel's buffers absorb it
    // before the outbox limits are judged.
    if (this.bytes >= this.limits.socketHighWaterBytes) this.flush();
    else this.scheduler.request(this);
    if (this.bytes > this.limits.maxQueuedBytes || this.count > this.limits.maxQueuedMessages) {
      this.clear();
      this.overflowed = true;
      this.onOverflow();
      return false;
    }
    return true;
  }

  /** Drops every waiting record (the connection is closing). */
  clear(): void {
    this.queue = [];
    this.head = 0;
    this.byKey.clear();
    this.bytes = 0;
    this.count = 0;
  }

  /** Hands waiting records to the socket, in batches, while it keeps up. */
  flush(): void {
    while (this.head < this.queue.length && this.sink.bufferedAmount < this.limits.socketHighWaterBytes) {
      const batch: Buffer[] = [];
      let size = 0;
      while (this.head < this.queue.length) {
        const item = this.queue[this.head]!;
        const record = Buffer.isBuffer(item) ? item : item.record;
        if (record && size > 0 && size + record.length > this.limits.socketHighWaterBytes) break;
        this.head++;
        if (!record) continue;
        batch.push(record);
        size += record.length;
        if (Buffer.isBuffer(item)) this.take(record);
        else this.discard(item);
      }
      if (batch.length > 0) this.sink.send(this.scheduler.join(batch, size), this.written);
    }
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  private readonly written = (err?: Error) => {
    if (!err && this.head < this.queue.length) this.scheduler.request(this);
  };

  private take(record: Buffer): void {
    this.bytes -= record.length;
    this.count -= 1;
  }

  private discard(keyed: KeyedRecord): void {
    if (!keyed.record) return;
    this.take(keyed.record);
    keyed.record = null;
    if (this.byKey.get(keyed.key) === keyed) this.byKey.delete(keyed.key);
  }
}
