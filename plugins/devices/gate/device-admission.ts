/**
 * How many device operations the gate lets run at once: a number that follows what they cost, not
 * a fixed one. Between `minimum` and `maximum` (`deviceConnections`: the sockets the gateway may
 * hold, one per device), it is steered by the event-loop delay of the threads that do the reads
 * (core/pool/thread-delay.ts), a delay-based, AIMD-like rule as TCP Vegas and Netflix's
 * concurrency-limits use for latency, but on the one latency that our own load makes: how long a
 * device's answer waits for its thread.
 *
 * - A read that waits on a slow device (AMT answers each request after 50-400 ms) costs its thread a
 *   few milliseconds of CPU in a second or two: a thousand of them leave the threads mostly idle and
 *   the delay low, so the limit grows (×1.5 a tick while operations queue for it) up to
 *   `deviceConnections`. A fixed bound would count each as if it used a CPU (issue 21: 1,000 slow
 *   devices 256 at a time took twice tuned nmap's time).
 * - Reads that need the CPU (devices that answer at once, a machine busy with other work) make each
 *   answer wait behind the others' work: the delay rises long before they reach their request
 *   timeouts, and the limit shrinks (×0.7 a tick) until it falls again. A fixed bound high enough
 *   for slow devices let 1,000 such reads run at once on a loaded machine and all of them timed out.
 *
 * Why the threads' delay rather than each read's latency (Vegas' RTT against its floor): devices
 * differ by a factor of eight in their own answer times and a scan reads each once, so a read's
 * latency says little about queueing, while the delay measures exactly the queueing we cause; it
 * also sees a thread descheduled by other work on the machine, which CPU utilisation would not.
 */

/** The limit is reconsidered this often while operations run (ms). */
export const ADMISSION_TICK_MS = 100;
/** Below this delay (ms) the threads have room: the limit grows if operations wait for it. */
export const GROW_BELOW_MS = 75;
/** Above this delay (ms) answers queue for their thread: the limit shrinks. */
export const SHRINK_ABOVE_MS = 200;
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
  /** One step of the rule with the delay measured since the last step; returns the new limit. */
  step(delayMs: number): number;
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
    step(delayMs) {
      if (delayMs > SHRINK_ABOVE_MS) limit = Math.max(bounds.minimum, Math.floor(limit * BACKOFF));
      else if (delayMs < GROW_BELOW_MS && pressed) limit = Math.min(bounds.maximum, Math.ceil(limit * GROWTH));
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
    },
  };
}
