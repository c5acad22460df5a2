/** Helpers of the tests that run a whole gateway with the cira plugin. */

/** The CIRA listener's port, from the gateway's own log line (the tests listen on port 0). */
export function ciraPort(logs: readonly string[]): number {
  const line = logs.map((l) => JSON.parse(l) as { msg: string; port?: number }).find((l) => l.msg === 'cira server listening');
  if (!line?.port) throw new Error('the CIRA listener did not report its port');
  return line.port;
}

/** Polls `check` every 50 ms until it gives a value, failing with `what` after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
