/**
 * TCP connect probes of many addresses, built for networks where most addresses are silent: many
 * probes in flight, new ones paced by a rate, each timed out by the scan's measured round trips
 * (see rtt-estimator.ts), one socket per probe closed as soon as the probe is decided. An address's
 * ports are probed one after the other, within the address's turn of the gateway's shared turn table
 * when one is given (an address another thread is talking to waits until it is done), so no address
 * ever has two of our connections at once.
 */
import { createConnector, type ConnectAttempt, type ConnectOutcome, type Connector } from './connect-attempts.js';
import { ProbePacer } from './probe-pacer.js';
import type { RttEstimator } from './rtt-estimator.js';
import { suppressStackTraces } from './tcp-probe.js';
import { CONNECTION_SETTLE_MS, type TurnTable } from './turn-table.js';

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
  /** The devices' turns (the device gate's, shared by every thread): each address is probed within its turn. */
  turns?: TurnTable;
  /** How connects are made (default {@link createConnector}; tests also run the `net.Socket` one). */
  connector?: <T>(outcome: ConnectOutcome<T>) => Connector<T>;
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

/** An address being probed: the same object carries it from one port to the next. */
interface Probe {
  address: string;
  portIndex: number;
  open: number[];
  sentAt: number;
  attempt: ConnectAttempt | null;
  /** The address's turn while it is probed (its slot in the turn table), or -1. */
  turn: number;
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
  // In start order (a probe moving on to its next port goes to the end): the order timeouts expire in.
  const inflight = new Set<Probe>();
  const followUps: Probe[] = [];
  let followHead = 0;
  /** Addresses whose turn another thread holds: probed once it is given back. */
  let waitingTurn: Probe[] = [];
  const { turns } = options;
  /** Addresses that accepted a probe and wait for the device to take in its close before the next connection to it. */
  const settling = new Map<Probe, NodeJS.Timeout>();
  const giveTurn = (probe: Probe): void => {
    if (probe.turn >= 0) turns?.give(probe.turn);
    probe.turn = -1;
  };
  let nextAddress = 0;
  let maxInFlight = Math.max(1, Math.floor(options.maxInFlight));
  const result: ProbeEngineResult = { decided: 0, socketShortages: 0, maxInFlight, peakInFlight: 0 };
  let restoreStackTraces = (): void => undefined;
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
      for (const probe of inflight) {
        probe.attempt?.close();
        giveTurn(probe);
      }
      inflight.clear();
      for (let i = followHead; i < followUps.length; i++) giveTurn(followUps[i]!);
      for (const [probe, timer] of settling) {
        clearTimeout(timer);
        giveTurn(probe);
      }
      settling.clear();
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
      if (nextAddress < addresses.length) return { address: addresses[nextAddress++]!, portIndex: 0, open: [], sentAt: 0, attempt: null, turn: -1 };
      return undefined;
    };

    const decide = (probe: Probe, open: boolean): void => {
      if (!inflight.delete(probe)) return;
      probe.attempt?.close();
      probe.attempt = null;
      result.decided++;
      options.onProbeDecided?.();
      if (open) probe.open.push(ports[probe.portIndex]!);
      const last = probe.portIndex + 1 >= ports.length;
      if (last) options.onAddressDone(probe.address, probe.open);
      const next = (): void => {
        if (!last) {
          probe.portIndex++;
          followUps.push(probe);
        } else giveTurn(probe);
      };
      // The device took a connection: it is given time to take in the close before the next one (see CONNECTION_SETTLE_MS).
      if (open && turns) {
        settling.set(
          probe,
          setTimeout(() => {
            settling.delete(probe);
            next();
            pump();
          }, CONNECTION_SETTLE_MS),
        );
      } else next();
    };

    const settled = (probe: Probe, error: string | undefined): void => {
      if (error !== undefined && LOCAL_SHORTAGE.has(error)) {
        // Nothing was learned about the address: try again once fewer sockets are open.
        inflight.delete(probe);
        probe.attempt?.close();
        probe.attempt = null;
        result.socketShortages++;
        maxInFlight = Math.max(1, Math.min(maxInFlight, inflight.size));
        followUps.splice(followHead, 0, probe);
        return;
      }
      // A refusal is an answer: it measures the round trip as well as an accept does.
      if (error === undefined || error === 'ECONNREFUSED') rtt.sample(awakeNow() - probe.sentAt);
      decide(probe, error === undefined);
      pump();
    };
    const connector = (options.connector ?? createConnector)<Probe>(settled);
    // Only sockets make an Error per refusal; handles report an errno, and the thread's other tasks keep their stacks.
    if (connector.kind === 'socket') restoreStackTraces = suppressStackTraces();

    const start = (probe: Probe): void => {
      probe.sentAt = awakeNow();
      inflight.add(probe);
      if (inflight.size > result.peakInFlight) result.peakInFlight = inflight.size;
      probe.attempt = connector.connect(probe.address, ports[probe.portIndex]!, probe);
    };

    const pump = (): void => {
      if (finished) return;
      const room = maxInFlight - inflight.size;
      const granted = room > 0 ? pacer.take(room) : 0;
      for (let started = 0; started < granted; ) {
        const probe = nextProbe();
        if (!probe) break;
        if (turns && probe.turn < 0 && (probe.turn = turns.tryTake(probe.address)) < 0) {
          waitingTurn.push(probe);
          continue;
        }
        start(probe);
        started++;
      }
      if (inflight.size === 0 && followHead >= followUps.length && nextAddress >= addresses.length && waitingTurn.length === 0 && settling.size === 0) finish();
    };

    const expire = (): void => {
      const now = awakeNow();
      const timeout = rtt.timeoutMs();
      // Probes sit in the set in the order they started, and share one timeout: stop at the first one still in time.
      for (const probe of inflight) {
        if (now - probe.sentAt < timeout) break;
        decide(probe, false);
      }
    };

    // Timeouts are checked after the loop's I/O: a timer runs before the I/O callbacks of its loop
    // turn, so on a thread busy with other work a probe whose connect already completed in the
    // kernel would be timed out before its callback ran (a device taken for a silent address).
    /** Addresses whose turn came back go first, as the next ports of addresses under way do. */
    const retryTurns = (): void => {
      if (waitingTurn.length === 0) return;
      const still: Probe[] = [];
      for (const probe of waitingTurn) {
        probe.turn = turns!.tryTake(probe.address);
        if (probe.turn >= 0) followUps.push(probe);
        else still.push(probe);
      }
      waitingTurn = still;
    };
    const check = (): void => {
      expire();
      retryTurns();
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
