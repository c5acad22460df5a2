import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { FlushScheduler } from '../../../plugins/scan-hub/flush-scheduler.js';
import { Outbox, type FrameSink } from '../../../plugins/scan-hub/outbox.js';

/** A socket stand-in that takes every frame at once and keeps it. */
class RecordingSocket implements FrameSink {
  readonly bufferedAmount = 0;
  readonly frames: Buffer[] = [];

  send(frame: Buffer, written: (err?: Error) => void): void {
    this.frames.push(frame);
    written();
  }

  get texts(): string[] {
    return this.frames.map((f) => f.toString());
  }
}

const limits = { socketHighWaterBytes: 1000, maxQueuedBytes: 10_000, maxQueuedMessages: 100 };
const noOverflow = () => assert.fail('no overflow expected');
const record = (text: string) => Buffer.from(`${text}|`);

test('the first record after a quiet spell goes out on the next turn; what follows within the interval waits and goes out as one frame', async () => {
  const socket = new RecordingSocket();
  const outbox = new Outbox(socket, limits, new FlushScheduler(500), noOverflow);
  outbox.push(record('first'));
  await nextTurn();
  assert.deepEqual(socket.texts, ['first|'], 'not held for the interval');

  for (const text of ['a', 'b', 'c']) {
    outbox.push(record(text));
    await nextTurn();
  }
  assert.deepEqual(socket.texts, ['first|'], 'records of later turns wait for the interval');
  await sleep(600);
  assert.deepEqual(socket.texts, ['first|', 'a|b|c|'], 'then go out together, in order');
});

test('a slow flush, as with many clients, spaces the next one out by itself', async () => {
  const socket = new RecordingSocket();
  const sentAt: number[] = [];
  let firstFlushEnded = 0;
  const slowSocket: FrameSink = {
    bufferedAmount: 0,
    send(frame, written) {
      sentAt.push(performance.now());
      const until = performance.now() + 25;
      while (performance.now() < until); // the cost of writing to many sockets
      firstFlushEnded ||= performance.now();
      socket.send(frame, written);
    },
  };
  const outbox = new Outbox(slowSocket, limits, new FlushScheduler(0), noOverflow);
  outbox.push(record('a'));
  await nextTurn();
  outbox.push(record('b'));
  outbox.push(record('c'));
  for (const started = performance.now(); socket.frames.length < 2 && performance.now() - started < 5_000; ) await sleep(5);
  assert.deepEqual(socket.texts, ['a|', 'b|c|'], 'the records that came during the pause share one frame');
  // Four times the 25 ms flush, capped at 50 ms (less a few ms: the event loop's clock lags); without
  // the spacing the next flush would follow at once.
  assert.ok(sentAt[1]! - firstFlushEnded >= 40, `the next flush came ${(sentAt[1]! - firstFlushEnded).toFixed(1)} ms after the slow one`);
});

test('outboxes flushed with the same records share one joined frame; a client with other records gets its own', async () => {
  const scheduler = new FlushScheduler(0);
  const sockets = [new RecordingSocket(), new RecordingSocket(), new RecordingSocket()];
  const outboxes = sockets.map((socket) => new Outbox(socket, limits, scheduler, noOverflow));
  const shared = [record('started'), record('device-1'), record('device-2')];
  outboxes[2]!.push(record('completion'));
  for (const r of shared) for (const outbox of outboxes) outbox.push(r);
  await nextTurn();
  const [a, b, c] = sockets.map((s) => s.frames);
  assert.equal(a!.length, 1);
  assert.equal(a![0]!.toString(), 'started|device-1|device-2|');
  assert.equal(b![0], a![0], 'the very same buffer, not a copy per client');
  assert.equal(c![0]!.toString(), 'completion|started|device-1|device-2|');
});

test('a disposed scheduler runs no pending flush', async () => {
  const socket = new RecordingSocket();
  const scheduler = new FlushScheduler(0);
  const outbox = new Outbox(socket, limits, scheduler, noOverflow);
  outbox.push(record('late'));
  scheduler.dispose();
  await nextTurn();
  assert.deepEqual(socket.texts, []);
});
