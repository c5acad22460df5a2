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

/** Probes many ports cheaply: one abort listener and one deadline sweep for all sockets in flight. */
export interface TcpProber {
  /** True when `host:port` accepts a TCP connection within the prober's timeout; false on refusal, timeout or abort. */
  probe(host: string, port: number): Promise<boolean>;
  /** Settles every probe still in flight as closed and stops the sweep. */
  close(): void;
}

let openProbers = 0;
let savedStackTraceLimit = Error.stackTraceLimit;

/**
 * While a prober is open its thread captures no stack traces. Node makes an error for every refused
 * connect, and capturing (and, with source maps on, formatting) its stack cost a third of the CPU of
 * a sweep; the probes never look at it. Errors keep their messages and codes.
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
 * A prober for a whole batch. A socket per probe is unavoidable; a timer and an AbortSignal listener
 * per probe are not, and at tens of thousands of probes they cost as much as the connects.
 */
export function createTcpProber(timeoutMs: number, signal?: AbortSignal): TcpProber {
  const restoreStackTraces = suppressStackTraces();
  const inflight = new Map<Socket, { deadline: number; finish: (open: boolean) => void }>();
  const closeAll = (): void => {
    for (const { finish } of [...inflight.values()]) finish(false);
  };
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const { deadline, finish } of [...inflight.values()]) if (deadline <= now) finish(false);
  }, Math.max(5, Math.min(50, timeoutMs / 4)));
  signal?.addEventListener('abort', closeAll, { once: true });
  return {
    probe(host, port) {
      return new Promise((resolve) => {
        if (signal?.aborted) return resolve(false);
        const socket = new Socket();
        const finish = (open: boolean): void => {
          if (!inflight.delete(socket)) return;
          socket.destroy();
          resolve(open);
        };
        inflight.set(socket, { deadline: performance.now() + timeoutMs, finish });
        socket.once('connect', () => finish(true));
        socket.once('error', () => finish(false));
        socket.connect({ host, port });
      });
    },
    close() {
      restoreStackTraces();
      clearInterval(sweep);
      signal?.removeEventListener('abort', closeAll);
      closeAll();
    },
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
