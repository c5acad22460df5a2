/**
 * Alternating rounds for the redirection benchmark: two ways to the same simulated device (direct
 * and through the relay, or through a CIRA tunnel and over the LAN) take turns, round after round,
 * each round opening a session and doing the same work, so that a machine whose load changes from
 * second to second loads both ways alike. Each way keeps the MB/s of every round, the key-press
 * latencies, and the CPU seconds the benchmark process and the gateway process spent while it was
 * measured (so that a ratio can be told apart from one process starving the other).
 */
import type { RfbClient } from '../helpers/rfb-client.js';
import { percentile } from './latency.js';
import { readCpuAndFaults } from './process-rss.js';

export interface WaySession {
  rfb: RfbClient;
  close(): Promise<void>;
}

export interface Way {
  name: string;
  /** Anything to do before this way's round that is not measured (e.g. bring a tunnel up or down). */
  prepare?(): Promise<void>;
  open(): Promise<WaySession>;
  /** The process that relays this way's bytes, whose CPU is counted (default: the gateway). */
  relay?: { name: string; pid: number | undefined };
}

export interface RoundWork {
  /** Full frames are requested for this long (and at least `minFrames`). */
  framesMs: number;
  minFrames: number;
}

export interface WayResult {
  name: string;
  /** What the second CPU figure is of: the gateway, or the process relaying this way. */
  relayName: string;
  /** MB/s of pixel data, one figure per round. */
  rounds: number[];
  megabytes: number;
  /** CPU seconds while this way's frames were measured: the benchmark process (fleet and clients) and the gateway. */
  benchCpu: number;
  gatewayCpu: number;
  /**
   * Minor page faults meanwhile, of both processes: memory touched for the first time since it was
   * mapped, e.g. read buffers the allocator took back from the kernel after the last GC. On a VM
   * whose free pages go back to the host, each costs far more than on bare metal, and how much more
   * varies with the host: a figure to read beside the CPU per MB.
   */
  benchFaults: number;
  gatewayFaults: number;
  seconds: number;
}

interface Usage {
  cpu: number;
  faults: number;
}

function usageNow(gatewayPid: number | undefined): { bench: Usage; gateway: Usage } {
  const own = process.resourceUsage();
  return { bench: { cpu: (own.userCPUTime + own.systemCPUTime) / 1e6, faults: own.minorPageFault }, gateway: gatewayPid === undefined ? { cpu: 0, faults: 0 } : (readCpuAndFaults(gatewayPid) ?? { cpu: 0, faults: 0 }) };
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
  const results = ways.map((w): WayResult => ({ name: w.name, relayName: w.relay?.name ?? 'gateway', rounds: [], megabytes: 0, benchCpu: 0, gatewayCpu: 0, benchFaults: 0, gatewayFaults: 0, seconds: 0 }));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ways.map((_, i) => i) : ways.map((_, i) => ways.length - 1 - i);
    for (const index of order) {
      const way = ways[index]!;
      const result = results[index]!;
      await way.prepare?.();
      const session = await way.open();
      const relayPid = way.relay ? way.relay.pid : gatewayPid;
      const cpu0 = usageNow(relayPid);
      const { megabytes, seconds } = await frameRun(session.rfb, work.framesMs, work.minFrames);
      const cpu1 = usageNow(relayPid);
      result.seconds += seconds;
      result.rounds.push(megabytes / seconds);
      result.megabytes += megabytes;
      result.benchCpu += cpu1.bench.cpu - cpu0.bench.cpu;
      result.gatewayCpu += cpu1.gateway.cpu - cpu0.gateway.cpu;
      result.benchFaults += cpu1.bench.faults - cpu0.bench.faults;
      result.gatewayFaults += cpu1.gateway.faults - cpu0.gateway.faults;
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

/** "name: rounds 1, 2, 3 MB/s; CPU ms per MB: bench 4.1, gateway 2.0; page faults per MB ..." for the notes. */
export function describeWay(w: WayResult): string {
  const perMb = (s: number) => (w.megabytes > 0 ? ((s * 1000) / w.megabytes).toFixed(2) : '-');
  const faultsPerMb = (n: number) => (w.megabytes > 0 ? (n / w.megabytes).toFixed(1) : '-');
  return (
    `${w.name}: rounds ${w.rounds.map((x) => x.toFixed(0)).join(', ')} MB/s; CPU per MB of frames: benchmark process ${perMb(w.benchCpu)} ms, ${w.relayName} ${perMb(w.gatewayCpu)} ms; ` +
    `minor page faults per MB: ${faultsPerMb(w.benchFaults)} / ${faultsPerMb(w.gatewayFaults)}; busy ${((w.benchCpu / w.seconds) * 100).toFixed(0)} % / ${((w.gatewayCpu / w.seconds) * 100).toFixed(0)} % of a CPU`
  );
}
