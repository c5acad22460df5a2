import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlushScheduler } from '../../../plugins/scan-hub/flush-scheduler.js';
import { Outbox, type FrameSink } from '../../../plugins/scan-hub/outbox.js';

/** A socket stand-in whose writes complete only when the test drains it; records end with '|'. */
class FakeSocket implements FrameSink {
  bufferedAmount = 0;
  /** Records delivered, in order. */
  readonly records: string[] = [];
  /** How many frames carried them. */
  frames = 0;
  private readonly pending: Array<{ frame: Buffer; written: (err?: Error) => void }> = [];

  send(frame: Buffer, written: (err?: Error) => void): void {
    this.bufferedAmount += frame.length;
    this.pending.push({ frame, written });
  }

  /**
   * Completes every pending write, as a reader catching up would, and lets the outbox flush again,
   * until nothing new has come for longer than the flush scheduler's longest gap (50 ms).
   */
  async drain(): Promise<void> {
    let quietSince = performance.now();
    for (const started = performance.now(); performance.now() - started < 5_000; ) {
      if (this.pending.length > 0) quietSince = performance.now();
      else if (performance.now() - quietSince > 150) return;
      while (this.pending.length > 0) {
        const { frame, written } = this.pending.shift()!;
        this.bufferedAmount -= frame.length;
        this.frames += 1;
        this.records.push(...frame.toString().split('|').slice(0, -1));
        written();
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}

const record = (text: string) => Buffer.from(`${text}|`);
const limits = { socketHighWaterBytes: 10, maxQueuedBytes: 1000, maxQueuedMessages: 100 };
const noOverflow = () => assert.fail('no overflow expected');

test('records pushed in one turn reach a socket that keeps up in one frame, in order', async () => {
  const socket = new FakeSocket();
  const outbox = new Outbox(socket, { ...limits, socketHighWaterBytes: 1000 }, new FlushScheduler(), noOverflow);
  for (const text of ['a', 'b', 'c']) outbox.push(record(text));
  await socket.drain();
  assert.deepEqual(socket.records, ['a', 'b', 'c']);
  assert.equal(socket.frames, 1);
  assert.equal(outbox.queuedMessages, 0);
});

test('while the socket is full, progress of one key coalesces (latest wins, after what was queued before it) and the rest all wait in order', async () => {
  const socket = new FakeSocket();
  const outbox = new Outbox(socket, limits, new FlushScheduler(), noOverflow);
  outbox.push(record('first-record-fills-the-socket'));
  outbox.push(record('progress-10'), 'p:scan');
  outbox.push(record('device-1'));
  outbox.push(record('progress-20'), 'p:scan');
  outbox.push(record('other-scan-50'), 'p:other');
  outbox.push(record('device-2'));
  outbox.push(record('progress-30'), 'p:scan');
  assert.equal(outbox.queuedMessages, 4);
  await socket.drain();
  assert.deepEqual(socket.records, ['first-record-fills-the-socket', 'device-1', 'other-scan-50', 'device-2', 'progress-30']);
});

test('past its bound the outbox empties, takes nothing more and reports the overflow once', async () => {
  const socket = new FakeSocket();
  let overflows = 0;
  const outbox = new Outbox(socket, { socketHighWaterBytes: 10, maxQueuedBytes: 50, maxQueuedMessages: 100 }, new FlushScheduler(), () => overflows++);
  outbox.push(record('x'.repeat(20)));
  const accepted = Array.from({ length: 10 }, () => outbox.push(record('y'.repeat(20))));
  assert.deepEqual(accepted.slice(0, 3), [true, true, false]);
  assert.equal(overflows, 1);
  assert.equal(outbox.queuedBytes, 0, 'nothing is kept for a client over its bound');
  await socket.drain();
  assert.deepEqual(socket.records, ['x'.repeat(20)], 'only what the socket had already taken');
});

test('the message bound holds even for tiny records', () => {
  const socket = new FakeSocket();
  let overflows = 0;
  const outbox = new Outbox(socket, { socketHighWaterBytes: 1, maxQueuedBytes: 1_000_000, maxQueuedMessages: 5 }, new FlushScheduler(), () => overflows++);
  for (let i = 0; i < 7; i++) outbox.push(record('z'));
  assert.equal(overflows, 1);
});
