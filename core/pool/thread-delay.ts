/**
 * How long the threads that run device work keep a ready callback waiting: the event-loop delay of
 * the worker threads (while they run tasks) and of this thread. It is the signal the device gate
 * admits reads by (plugins/devices/gate/device-admission.ts): a read waiting on a slow device costs
 * its thread almost nothing and the delay stays low; reads that need the CPU (devices that answer at
 * once, a machine busy with other work) make every response wait behind the others, and the delay
 * says so long before the reads run into their timeouts.
 *
 * Each worker thread beats a timer (workers/worker-entry.mjs) and writes into shared memory the
 * longest lateness of its beats while it had tasks; an idle worker blocks in Piscina's Atomics.wait
 * and is not late, only idle, so it reports nothing. This thread reads and clears those slots.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** Worker threads beat this often (ms). */
export const BEAT_MS = 20;
/** Slots in the shared board; worker threads claim one each (round robin if more ever start). */
export const DELAY_SLOTS = 64;
/** Int32 fields per slot: [longest lateness in ms since last read, beats so far, tasks running]. */
export const SLOT_FIELDS = 3;

export interface ThreadDelayBoard {
  /** The shared memory handed to the worker threads (`workerData.delayBoard`). */
  readonly buffer: SharedArrayBuffer;
  /** The longest delay (ms) any of the threads showed since the previous call; clears it. */
  sample(): number;
  close(): void;
}

export function createThreadDelayBoard(): ThreadDelayBoard {
  // Field 0 of the buffer counts the slots claimed; the slots follow.
  const buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * (1 + DELAY_SLOTS * SLOT_FIELDS));
  const board = new Int32Array(buffer);
  const beatsSeen = new Int32Array(DELAY_SLOTS);
  let here: IntervalHistogram | undefined = monitorEventLoopDelay({ resolution: BEAT_MS });
  here.enable();
  let lastSample = performance.now();
  return {
    buffer,
    sample() {
      const now = performance.now();
      const window = now - lastSample;
      lastSample = now;
      let longest = here ? here.max / 1e6 : 0;
      here?.reset();
      const claimed = Math.min(DELAY_SLOTS, Atomics.load(board, 0));
      for (let slot = 0; slot < claimed; slot++) {
        const at = 1 + slot * SLOT_FIELDS;
        longest = Math.max(longest, Atomics.exchange(board, at, 0));
        const beats = Atomics.load(board, at + 1);
        // A thread with tasks that beat not once in the window is stuck in one long callback (or
        // descheduled): its lateness is not written yet, but it is at least the window.
        if (beats === beatsSeen[slot] && Atomics.load(board, at + 2) > 0 && window > 2 * BEAT_MS) longest = Math.max(longest, window);
        beatsSeen[slot] = beats;
      }
      return longest;
    },
    close() {
      here?.disable();
      here = undefined;
    },
  };
}
