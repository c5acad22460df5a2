/**
 * How many device operations the gate lets run at once: a number that follows what they cost, not
 * a fixed one. Between `minimum` and `maximum` (`deviceConnections`: the sockets the gateway may
 * hold, one per device) it is steered every 100 ms by what the threads doing the reads showed
 * (core/pool/thread-delay.ts): how busy they were and how long a ready answer waited for its thread.
 * An AIMD-like, delay-based rule as TCP Vegas and Netflix's concurrency-limits use, but on the one
 * latency that our own load makes.
 *
 * - A read that waits on a slow device (AMT answers each request after 50-400 ms) costs its thread a
 *   few milliseconds of CPU in a second or two: a thousand of them leave the threads mostly idle, so
 *   while operations queue the limit grows (×1.5 a tick) up to `deviceConnections`. A fixed bound
 *   counted each as if it used a CPU (issue 21: 1,000 slow devices 256 at a time took twice tuned
 *   nmap's time).
 * - Reads that need the CPU (devices that answer at once, many at a time) keep the threads busy
 *   (utilisation ≥ 0.9): the limit then grows only additively (a quarter of `start` a tick) while
 *   answers wait under 150 ms, holds above, and shrinks (×0.7 a tick) when they wait over 500 ms,
 *   long before reads reach their 10 s request timeouts. A fixed bound high enough for slow devices
 *   let 1,000 such reads run at once on a loaded machine, and all of them timed out; so did a
 *   multiplicative ramp, which admitted them all before the first one's cost showed in the delay.
 * - Answers that wait while the threads are idle mean other work on the machine has the CPUs:
 *   admitting fewer would not give them back, so that alone does not shrink the limit.
 *
 * Why not each read's own latency (Vegas' round trip against its floor): devices differ eightfold in
 * their answer times and a scan reads each device once, so a read's latency says little about
 * queueing, while the threads' delay and utilisation measure exactly the queueing we cause.
 */

import type { ThreadLoad } from '../../../core/plugin-api.js';

/** The limit is reconsidered this often while operations run (ms). */
export const ADMISSION_TICK_MS = 100;
/** Below this delay (ms) answers hardly wait for their thread: the limit may grow. */
export const GROW_BELOW_MS = 150;
/** Above this delay (ms), with the threads busy, answers queue behind our own work: the limit shrinks. */
export const SHRINK_ABOVE_MS = 500;
/** Event-loop utilisation from which a thread counts as busy (its own work, not waiting on devices). */
export const BUSY_FROM = 0.9;
/** Steps whose worst delay decides whether busy threads may take more. */
const DELAY_MEMORY = 3;
const GROWTH = 1.5;
const BACKOFF = 0.7;

export interface AdmissionBounds {
  /** The ceiling: `deviceConnections` (sockets), never exceeded. */
  maximum: number;
  /** The limit the gate starts with, and returns to after a quiet spell. */
  start: number;
  /** The floor: operations always admitted, however loaded the threads. */
  minimum: number;
}

export interface Admission {
  readonly limit: number;
  readonly bounds: Readonly<AdmissionBounds>;
  /** Notes that an operation waited for the limit since the last tick (only then may it grow). */
  pressed(): void;
  /** One step of the rule with what the threads showed since the last step; returns the new limit. */
  step(load: ThreadLoad): number;
  /** New bounds (at start, before any operation); the limit is clamped into them. */
  rebound(bounds: AdmissionBounds): void;
  /**
   * No operation ran for a while: back to `start`. What the last burst taught says little about the
   * next (a scan of slow devices, then one of devices that answer at once), and starting a thousand
   * reads that need the CPU at once is what starved them into their timeouts.
   */
  rest(): void;
}

export function fitBounds(bounds: AdmissionBounds): AdmissionBounds {
  const maximum = Math.max(1, Math.floor(bounds.maximum));
  const minimum = Math.max(1, Math.min(maximum, Math.floor(bounds.minimum)));
  return { maximum, minimum, start: Math.max(minimum, Math.min(maximum, Math.floor(bounds.start))) };
}

export function createAdmission(given: AdmissionBounds): Admission {
  let bounds = fitBounds(given);
  let limit = bounds.start;
  let pressed = false;
  const recent: number[] = [];
  return {
    get limit() {
      return limit;
    },
    get bounds() {
      return bounds;
    },
    pressed() {
      pressed = true;
    },
    step({ delayMs, busy }) {
      // Reads admitted now show their cost a few hundred ms later (connect, challenge, then the CPU
      // work): growth looks at the worst delay of the last few steps, so a spike is not forgotten.
      recent.push(delayMs);
      if (recent.length > DELAY_MEMORY) recent.shift();
      const lately = Math.max(...recent);
      // Busy threads and waiting answers: our own work is the queue. Idle threads whose answers wait:
      // other work on the machine has the CPUs, and fewer operations would not bring them back.
      const busyThreads = busy >= BUSY_FROM;
      if (busyThreads && delayMs > SHRINK_ABOVE_MS) limit = Math.max(bounds.minimum, Math.floor(limit * BACKOFF));
      else if (pressed && !busyThreads) limit = Math.min(bounds.maximum, Math.ceil(limit * GROWTH));
      // Busy threads that still answer promptly: room for more, found step by step, since the cost of
      // the last step is not visible yet (a thousand reads at once starved before the delay showed it).
      else if (pressed && lately < GROW_BELOW_MS) limit = Math.min(bounds.maximum, limit + Math.max(1, Math.ceil(bounds.start / 4)));
      pressed = false;
      return limit;
    },
    rebound(next) {
      bounds = fitBounds(next);
      limit = bounds.start;
    },
    rest() {
      limit = bounds.start;
      pressed = false;
      recent.length = 0;
    },
  };
}
