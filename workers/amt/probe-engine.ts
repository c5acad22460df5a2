/**
 * TCP connect probes of many addresses, built for networks where most addresses are silent: many
 * probes in flight, new ones paced by a rate, each timed out by the scan's measured round trips
 * (see rtt-estimator.ts), one socket per probe closed as soon as the probe is decided. An address's
 * ports are probed one after the other, so no address ever has two of our connections at once.
 */
import { Socket } from 'node:net';
import { ProbePacer } from './probe-pacer.js';
import type { RttEstimator } from './rtt-estimator.js';
import { suppressStackTraces } from './tcp-probe.js';

export interface ProbeEngineOptions {
  /** Ports tried in this order on every address. */
  ports: readonly number[];
  /** Probes (sockets) open at once at most. */
  maxInFlight: number;
  /** New probes per second (0: unpaced). */
  ratePerSecond: number;
  rtt: RttEstimator;
  signal?: AbortSignal;
  /** Every probe decided: accepted, refused, unreachable or timed out. */
  onProbeDecided?: () => void;
  /** Every port of `address` decided; `openPorts` accepted a connection. */
  onAddressDone: (address: string, openPorts: number[]) => void;
}

export interface ProbeEngineResult {
  /** Probes decided (all of them unless aborted). */
  decided: number;
  /** Times the process ran out of file descriptors or local ports and in-flight was lowered. */
  socketShortages: number;
  /** In-flight at the end (lower than asked after a shortage). */
  maxInFlight: number;
  /** The most probes that were in flight at once. */
  peakInFlight: number;
}

interface Probe {
  address: string;
  portIndex: number;
  open: number[];
  sentAt: number;
}

/** How often timeouts are checked and the pacer refilled. */
const TICK_MS = 5;
/**
 * Most of a gap between two looks at the clock that counts towards a probe's timeout. A thread that
 * was not scheduled for a second (a loaded machine, a long task beside the probes) saw nothing in
 * that second: counting it would time out answers that came meanwhile, and take devices for silence.
 */
const MAX_CREDITED_GAP_MS = 50;
/** Errors that say nothing about the target: the socket could not be made here. Retried, in-flight lowered. */
const LOCAL_SHORTAGE = new Set(['EMFILE', 'ENFILE', 'EADDRNOTAVAIL', 'ENOBUFS']);

/** Probes every port of every address; resolves once all are decided (or at once when aborted). */
export function probeAddresses(addresses: readonly string[], options: ProbeEngineOptions): Promise<ProbeEngineResult> {
  const { ports, rtt, signal } = options;
  const pacer = new ProbePacer(options.ratePerSecond);
  const inflight = new Map<Socket, Probe>();
  const followUps: Probe[] = [];
  let followHead = 0;
  let nextAddress = 0;
  let maxInFlight = Math.max(1, Math.floor(options.maxInFlight));
  const result: ProbeEngineResult = { decided: 0, socketShortages: 0, maxInFlight, peakInFlight: 0 };
  const restoreStackTraces = suppressStackTraces();
  // Probe times run on this clock: wall time, less the stalls of this thread beyond MAX_CREDITED_GAP_MS.
  let awake = 0;
  let lastWall = performance.now();
  const awakeNow = (): number => {
    const wall = performance.now();
    awake += Math.min(wall - lastWall, MAX_CREDITED_GAP_MS);
    lastWall = wall;
    return awake;
  };

  return new Promise((resolve) => {
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearInterval(ticker);
      signal?.removeEventListener('abort', abort);
      for (const socket of inflight.keys()) socket.destroy();
      inflight.clear();
      restoreStackTraces();
      result.maxInFlight = maxInFlight;
      resolve(result);
    };
    const abort = (): void => finish();

    const nextProbe = (): Probe | undefined => {
      if (followHead < followUps.length) {
        const probe = followUps[followHead++]!;
        // Drop the consumed head now and then, so the queue's memory follows what is still waiting.
        if (followHead > 1024 && followHead * 2 > followUps.length) {
          followUps.splice(0, followHead);
          followHead = 0;
        }
        return probe;
      }
      if (nextAddress < addresses.length) return { address: addresses[nextAddress++]!, portIndex: 0, open: [], sentAt: 0 };
      return undefined;
    };

    const decide = (socket: Socket, probe: Probe, open: boolean): void => {
      if (!inflight.delete(socket)) return;
      socket.destroy();
      result.decided++;
      options.onProbeDecided?.();
      if (open) probe.open.push(ports[probe.portIndex]!);
      if (probe.portIndex + 1 < ports.length) followUps.push({ ...probe, portIndex: probe.portIndex + 1 });
      else options.onAddressDone(probe.address, probe.open);
    };

    const start = (probe: Probe): void => {
      const socket = new Socket();
      probe.sentAt = awakeNow();
      inflight.set(socket, probe);
      result.peakInFlight = Math.max(result.peakInFlight, inflight.size);
      socket.once('connect', () => {
        rtt.sample(awakeNow() - probe.sentAt);
        decide(socket, probe, true);
        pump();
      });
      socket.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code && LOCAL_SHORTAGE.has(error.code)) {
          // Nothing was learned about the address: try again once fewer sockets are open.
          inflight.delete(socket);
          socket.destroy();
          result.socketShortages++;
          maxInFlight = Math.max(1, Math.min(maxInFlight, inflight.size));
          followUps.splice(followHead, 0, probe);
          return;
        }
        // A refusal is an answer: it measures the round trip as well as an accept does.
        if (error.code === 'ECONNREFUSED') rtt.sample(awakeNow() - probe.sentAt);
        decide(socket, probe, false);
        pump();
      });
      socket.connect({ host: probe.address, port: ports[probe.portIndex]! });
    };

    const pump = (): void => {
      if (finished) return;
      const room = maxInFlight - inflight.size;
      const granted = room > 0 ? pacer.take(room) : 0;
      for (let i = 0; i < granted; i++) {
        const probe = nextProbe();
        if (!probe) break;
        start(probe);
      }
      if (inflight.size === 0 && followHead >= followUps.length && nextAddress >= addresses.length) finish();
    };

    const expire = (): void => {
      const now = awakeNow();
      const timeout = rtt.timeoutMs();
      // Probes sit in the map in the order they started, and share one timeout: stop at the first one still in time.
      for (const [socket, probe] of inflight) {
        if (now - probe.sentAt < timeout) break;
        decide(socket, probe, false);
      }
    };

    // Timeouts are checked after the loop's I/O: a timer runs before the I/O callbacks of its loop
    // turn, so on a thread busy with other work a probe whose connect already completed in the
    // kernel would be timed out before its callback ran (a device taken for a silent address).
    const check = (): void => {
      expire();
      pump();
    };
    const ticker = setInterval(() => setImmediate(check), TICK_MS);
    if (signal?.aborted) return finish();
    signal?.addEventListener('abort', abort, { once: true });
    if (ports.length === 0) {
      for (const address of addresses) options.onAddressDone(address, []);
      return finish();
    }
    pump();
  });
}
