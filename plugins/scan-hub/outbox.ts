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

interface Entry {
  frame: Buffer | null;
  key: string | undefined;
}

/**
 * Flushes outboxes once per event-loop turn, so that the events one turn publishes reach each
 * client as one WebSocket frame (hub records may share a frame) instead of one send per event.
 */
export class FlushScheduler {
  private dirty = new Set<Outbox>();
  private scheduled = false;

  request(outbox: Outbox): void {
    this.dirty.add(outbox);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  private readonly run = () => {
    this.scheduled = false;
    const dirty = this.dirty;
    this.dirty = new Set();
    for (const outbox of dirty) outbox.flush();
  };
}

/**
 * A per-connection send queue that never blocks the sender and never grows without bound.
 *
 * Records wait here until the next flush, which hands them to the socket in batches while the
 * socket keeps up. Once the socket holds `socketHighWaterBytes` unsent, records stay here; a record
 * pushed with a coalescing key replaces the waiting record with the same key (the latest wins, and
 * it moves to the end so that it never overtakes records queued before it). Records without a key
 * are never dropped: when the waiting records exceed the limits, the outbox empties itself,
 * refuses further records and calls `onOverflow` once.
 */
export class Outbox {
  private queue: Entry[] = [];
  private head = 0;
  private readonly byKey = new Map<string, Entry>();
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
    if (key !== undefined) {
      const stale = this.byKey.get(key);
      if (stale) this.discard(stale);
    }
    const entry: Entry = { frame: record, key };
    this.queue.push(entry);
    if (key !== undefined) this.byKey.set(key, entry);
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
        const entry = this.queue[this.head]!;
        if (entry.frame && size > 0 && size + entry.frame.length > this.limits.socketHighWaterBytes) break;
        this.head++;
        if (!entry.frame) continue;
        batch.push(entry.frame);
        size += entry.frame.length;
        this.discard(entry);
      }
      if (batch.length > 0) this.sink.send(batch.length === 1 ? batch[0]! : Buffer.concat(batch, size), this.written);
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

  private discard(entry: Entry): void {
    if (!entry.frame) return;
    this.bytes -= entry.frame.length;
    this.count -= 1;
    entry.frame = null;
    if (entry.key !== undefined && this.byKey.get(entry.key) === entry) this.byKey.delete(entry.key);
  }
}
