/** The one polling wait of the tests: a condition checked again and again until it holds, within a bound. */

export interface PollOptions {
  /** Give up after this long (default 20 s: a loaded machine runs the tests). */
  timeoutMs?: number;
  /** Pause between checks (default 20 ms). */
  intervalMs?: number;
}

type Checked<T> = T | undefined | null | false;

/**
 * Checks `check` until it gives a value other than `undefined`, `null` or `false`, and returns that
 * value (so `0` and `''` count as found); fails naming `what` after the timeout. `check` may be
 * synchronous or return a promise.
 */
export async function until<T>(what: string, check: () => Checked<T> | Promise<Checked<T>>, options: PollOptions | number = {}): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 20 } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
