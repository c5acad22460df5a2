/**
 * Alternating rounds for the redirection benchmark: two ways to the same simulated device (direct
 * and through the relay, or through a CIRA tunnel and over the LAN) take turns, round after round,
 * each round opening a session and doing the same work, so that a machine whose load changes from
 * second to second loads both ways alike. Each way keeps the MB/s of every round, the key-press
 * latencies, and the CPU seconds the benchmark process and the gateway process spent while it was
 * measured (so that a ratio can be told apart from one process starving the other).
 */
import { readCpuSeconds } from './process-rss.js';
import type { RfbClient } from '../helpers/rfb-client.js';
import { percentile } from './latency.js';

export interface WaySession {
  rfb: RfbClient;
  close(): Promise<void>;
}

export interface Way {
  name: string;
  /** Anything to do before this way's round that is not measured (e.g. bring a tunnel up or down). */
  prepare?(): Promise<void>;
  open(): Promise<WaySession>;
}

export interface RoundWork {
  /** Full frames are requested for this long (and at least `minFrames`). */
  framesMs: number;
  minFrames: number;
}

export interface WayResult {
  name: string;
  /** MB/s of pixel data, one figure per round. */
  rounds: number[];
  megabytes: number;
  /** CPU seconds while this way's frames were measured: the benchmark process (fleet and clients) and the gateway. */
  benchCpu: number;
  gatewayCpu: number;
  seconds: number;
}

function cpuNow(gatewayPid: number): { bench: number; gateway: number } {
  const own = process.cpuUsage();
  return { bench: (own.user + own.system) / 1e6, gateway: readCpuSeconds(gatewayPid) ?? 0 };
}

/** Full 32 bpp frames requested one after another for `framesMs` (at least `minFrames`): MB and seconds. */
export async function frameRun(rfb: RfbClient, framesMs: number, minFrames: number): Promise<{ megabytes: number; seconds: number }> {
  rfb.setPixelFormat(32);
  const before = rfb.pixelBytes;
  const t0 = performance.now();
  for (let i = 0; i < minFrames || performance.now() - t0 < framesMs; i++) {
    rfb.requestUpdate(false);
    await rfb.readUpdate();
  }
  return { megabytes: (rfb.pixelBytes - before) / 1e6, seconds: (performance.now() - t0) / 1000 };
}

/** A key press until the update it causes arrives (a 64x16 region around the typed keys), ms each. */
export async function keyLatencies(rfb: RfbClient, count: number, samples: number[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    rfb.requestUpdate(true, 0, 64, 64, 16);
    const t0 = performance.now();
    rfb.key(0x30 + (i % 10));
    await rfb.readUpdate();
    samples.push(performance.now() - t0);
  }
}

/**
 * Key presses on two open sessions in turn, one key each, so that both see the machine's load of the
 * same moments; `count` on each.
 */
export async function alternateKeys(a: RfbClient, b: RfbClient, count: number, samplesA: number[], samplesB: number[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    await keyLatencies(a, 1, samplesA);
    await keyLatencies(b, 1, samplesB);
  }
}

/** `rounds` rounds of every way in turn (the order swapped every round), the same work each. */
export async function alternate(ways: Way[], rounds: number, work: RoundWork, gatewayPid: number): Promise<WayResult[]> {
  const results = ways.map((w): WayResult => ({ name: w.name, rounds: [], megabytes: 0, benchCpu: 0, gatewayCpu: 0, seconds: 0 }));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ways.map((_, i) => i) : ways.map((_, i) => ways.length - 1 - i);
    for (const index of order) {
      const way = ways[index]!;
      const result = results[index]!;
      await way.prepare?.();
      const session = await way.open();
      const cpu0 = cpuNow(gatewayPid);
      const { megabytes, seconds } = await frameRun(session.rfb, work.framesMs, work.minFrames);
      const cpu1 = cpuNow(gatewayPid);
      result.seconds += seconds;
      result.rounds.push(megabytes / seconds);
      result.megabytes += megabytes;
      result.benchCpu += cpu1.bench - cpu0.bench;
      result.gatewayCpu += cpu1.gateway - cpu0.gateway;
      await session.close();
    }
  }
  return results;
}

export const median = (xs: readonly number[]): number | null => percentile([...xs].sort((a, b) => a - b), 50);

/** Per round pair, the first way's MB/s over the second's: the ratio with the machine's load of that moment. */
export function pairRatios(a: WayResult, b: WayResult): number[] {
  return a.rounds.map((x, i) => x / b.rounds[i]!);
}

/** "name: rounds 1, 2, 3 MB/s; CPU ms per MB: bench 4.1, gateway 2.0" for the notes. */
export function describeWay(w: WayResult): string {
  const perMb = (s: number) => (w.megabytes > 0 ? ((s * 1000) / w.megabytes).toFixed(2) : '-');
  return `${w.name}: rounds ${w.rounds.map((x) => x.toFixed(0)).join(', ')} MB/s; CPU per MB of frames: benchmark process ${perMb(w.benchCpu)} ms, gateway ${perMb(w.gatewayCpu)} ms; busy ${((w.benchCpu / w.seconds) * 100).toFixed(0)} % / ${((w.gatewayCpu / w.seconds) * 100).toFixed(0)} % of a CPU`;
}
