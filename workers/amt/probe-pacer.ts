/**
 * A token bucket for new probes: `ratePerSecond` on average, never more than `burst` at once (a late
 * timer on a busy thread does not turn into a flood). Rate 0 means unpaced.
 */
export class ProbePacer {
  private tokens: number;
  private last: number;
  readonly burst: number;

  constructor(
    readonly ratePerSecond: number,
    burst?: number,
    now: number = performance.now(),
  ) {
    // Default: what 100 ms at the rate would send: a thread busy with device reads runs its timers late,
    // and a smaller bucket would then cap the rate far below the one asked for.
    this.burst = Math.max(1, Math.floor(burst ?? ratePerSecond / 10));
    this.tokens = this.burst;
    this.last = now;
  }

  /** Probes that may start now (at most `wanted`); they are taken from the bucket. */
  take(wanted: number, now: number = performance.now()): number {
    if (this.ratePerSecond <= 0) return wanted;
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.ratePerSecond) / 1000);
    this.last = now;
    const granted = Math.max(0, Math.min(wanted, Math.floor(this.tokens)));
    this.tokens -= granted;
    return granted;
  }
}
