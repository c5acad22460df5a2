/** TCP connect probes: does a port accept a connection within a bound? Nothing is sent. */
import { Socket } from 'node:net';

/** True when `host:port` accepts a TCP connection within `timeoutMs`; false on refusal, timeout or abort. */
export function probeTcpPort(host: string, port: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const socket = new Socket();
    let settled = false;
    const finish = (open: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(open);
    };
    const onAbort = (): void => finish(false);
    const timer = setTimeout(() => finish(false), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
    socket.connect({ host, port });
  });
}

let openProbers = 0;
let savedStackTraceLimit = Error.stackTraceLimit;

/**
 * While a prober is open (the probe engine on `net.Socket`) its thread captures no stack traces.
 * Node makes an error for every refused connect, and capturing (and, with source maps on,
 * formatting) its stack cost a third of the CPU of a sweep; the probes never look at it. Errors
 * keep their messages and codes.
 */
export function suppressStackTraces(): () => void {
  if (openProbers++ === 0) {
    savedStackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
  }
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    if (--openProbers === 0) Error.stackTraceLimit = savedStackTraceLimit;
  };
}

/**
 * Runs `worker` over `items` with at most `concurrency` in flight; stops starting new items once
 * `signal` aborts.
 */
export async function forEachBounded<T>(items: readonly T[], concurrency: number, worker: (item: T, index: number) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, async () => {
    while (next < items.length && !signal?.aborted) {
      const index = next++;
      await worker(items[index]!, index);
    }
  });
  await Promise.all(lanes);
}
