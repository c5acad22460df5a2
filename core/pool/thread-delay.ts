/**
 * What the threads running tasks are going through, the signal an admission of I/O-waiting tasks
 * follows (in a full gateway the devices plugin's, plugins/devices/gate/device-admission.ts), in two parts:
 *
 * - how busy they are (event-loop utilisation: the share of the time a thread spent running
 *   callbacks rather than waiting for I/O), the worker threads' and this thread's;
 * - how long they keep a ready callback waiting (event-loop delay). Each worker thread beats a
 *   timer while it runs tasks (workers/worker-entry.mjs) and writes into shared memory the longest
 *   lateness of its beats; this thread reads and clears those slots, and watches its own loop.
 *
 * Either alone misleads. A task waiting on a slow peer costs its thread almost nothing: the threads
 * stay idle and answers wait only when other work on the machine takes the CPUs, which admitting
 * fewer reads would not cure. Reads that need the CPU (devices that answer at once, a thousand at a
 * time) keep the threads busy and every answer waits behind the others' work: that is when fewer
 * must run, before they starve each other into their request timeouts.
 */
import { monitorEventLoopDelay, performance, type EventLoopUtilization, type IntervalHistogram } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';

/** Worker threads beat this often (ms); this thread's monitor samples as often. */
export const BEAT_MS = 20;
/** Slots in the shared board; worker threads claim one each (round robin if more ever start). */
export const DELAY_SLOTS = 64;
/** Int32 fields per slot: [longest lateness in ms since last read, beats so far, tasks running]. */
export const SLOT_FIELDS = 3;

export interface ThreadLoad {
  /** The longest a ready callback waited on any of the threads since the previous sample (ms). */
  delayMs: number;
  /** The busiest thread's event-loop utilisation since the previous sample (0-1). */
  busy: number;
}

export interface ThreadDelayBoard {
  /** The shared memory handed to the worker threads (`workerData.delayBoard`). */
  readonly buffer: SharedArrayBuffer;
  /** What the threads showed since the previous call; starts the next window. */
  sample(): ThreadLoad;
  close(): void;
}

/** @param workers the pool's worker threads now (none before the pool starts them) */
export function createThreadDelayBoard(workers: () => readonly Worker[] = () => []): ThreadDelayBoard {
  // Field 0 of the buffer counts the slots claimed; the slots follow.
  const buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT * (1 + DELAY_SLOTS * SLOT_FIELDS));
  const board = new Int32Array(buffer);
  const beatsSeen = new Int32Array(DELAY_SLOTS);
  let here: IntervalHistogram | undefined = monitorEventLoopDelay({ resolution: BEAT_MS });
  here.enable();
  let hereUse = performance.eventLoopUtilization();
  const workerUse = new WeakMap<Worker, EventLoopUtilization>();
  let lastSample = performance.now();

  const delay = (window: number): number => {
    // The histogram holds whole intervals between its samples: the lateness is what exceeds one.
    let longest = here ? Math.max(0, here.max / 1e6 - BEAT_MS) : 0;
    here?.reset();
    const claimed = Math.min(DELAY_SLOTS, Atomics.load(board, 0));
    for (let slot = 0; slot < claimed; slot++) {
      const at = 1 + slot * SLOT_FIELDS;
      longest = Math.max(longest, Atomics.exchange(board, at, 0));
      const beats = Atomics.load(board, at + 1);
      // A thread with tasks that beat not once in the window is stuck in one long callback (or
      // descheduled): its lateness is not written yet, but it is at least the window.
      if (beats === beatsSeen[slot] && Atomics.load(board, at + 2) > 0 && window > 2 * BEAT_MS) longest = Math.max(longest, window - BEAT_MS);
      beatsSeen[slot] = beats;
    }
    return longest;
  };
  const busiest = (): number => {
    const now = performance.eventLoopUtilization();
    let most = performance.eventLoopUtilization(now, hereUse).utilization;
    hereUse = now;
    for (const worker of workers()) {
      const total = worker.performance.eventLoopUtilization();
      const before = workerUse.get(worker);
      if (before) most = Math.max(most, worker.performance.eventLoopUtilization(total, before).utilization);
      workerUse.set(worker, total);
    }
    return most;
  };

  return {
    buffer,
    sample() {
      const now = performance.now();
      const window = now - lastSample;
      lastSample = now;
      return { delayMs: delay(window), busy: busiest() };
    },
    close() {
      here?.disable();
      here = undefined;
    },
  };
}
