/** Helpers of the tests that run a whole gateway with the cira plugin. */

/** The CIRA listener's port, from the gateway's own log line (the tests listen on port 0). */
export function ciraPort(logs: readonly string[]): number {
  const line = logs.map((l) => JSON.parse(l) as { msg: string; port?: number }).find((l) => l.msg === 'cira server listening');
  if (!line?.port) throw new Error('the CIRA listener did not report its port');
  return line.port;
}

