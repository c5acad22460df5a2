/** The one polling wait of the tests: a condition checked again and again until it holds, within a bound. */

export interface PollOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between checks (default 20 ms). */
  intervalMs?: number;
}

/**
 * Checks `check` until it gives a truthy value and returns that value; fails naming `what` after
 * the timeout. `check` may be synchronous or return a promise.
 */
export async function until<T>(what: string, check: () => T | undefined | null | false | Promise<T | undefined | null | false>, options: PollOptions | number = {}): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 20 } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
