/**
 * Task `probe-batch`: finds AMT candidates among a batch of addresses. TCP connect probes of the HTTP
 * and TLS management ports (probe-engine.ts: many in flight, paced, timed out by the scan's measured
 * round trips) run while one UDP socket pings the whole batch (paced) and collects presence pongs.
 * Reports progress about every 100 ms: addresses finished and probes decided.
 */
import { isIP } from 'node:net';
import type { TaskTools } from '../task-api.js';
import { DEFAULT_PORTS } from '../amt/device-target.js';
import { ProbeCandidates } from '../amt/probe-candidates.js';
import { probeAddresses } from '../amt/probe-engine.js';
import { collectPongs } from '../amt/rmcp-collector.js';
import { RttEstimator } from '../amt/rtt-estimator.js';
import { TurnTable } from '../amt/turn-table.js';
import type { ProbeBatchInput, ProbeBatchOutput, ProbeBatchProgress } from './task-types.js';

export default async function probeBatch(input: ProbeBatchInput, tools: TaskTools<ProbeBatchProgress>): Promise<ProbeBatchOutput> {
  const started = performance.now();
  // Only literal IPs: a name would make the probe resolve DNS.
  const addresses = Array.isArray(input?.addresses) ? input.addresses.filter((a) => typeof a === 'string' && isIP(a) !== 0) : [];
  const httpPort = input?.ports?.http ?? DEFAULT_PORTS.http;
  const httpsPort = input?.ports?.https ?? DEFAULT_PORTS.https;
  const rmcpPort = input?.ports?.rmcp ?? DEFAULT_PORTS.rmcp;
  const tcpPorts = [httpPort, httpsPort].filter((p) => p > 0);
  const connectTimeoutMs = input?.connectTimeoutMs ?? 1_000;
  const signal = tools.signal;
  const rtt = new RttEstimator(input?.rtt instanceof Int32Array ? input.rtt : undefined, {
    initialMs: connectTimeoutMs,
    minMs: Math.min(connectTimeoutMs, input?.minTimeoutMs ?? 100),
    maxMs: connectTimeoutMs,
  });

  const found = new ProbeCandidates(rmcpPort);
  let tcpDone = 0;
  let probesDecided = 0;
  const probesTotal = addresses.length * tcpPorts.length;
  const report = (): void => {
    const complete = found.takeComplete();
    tools.progress({ probed: tcpDone, total: addresses.length, found: found.found, probesDecided, probesTotal, ...(complete.length ? { candidates: complete } : {}) });
  };
  const ticker = setInterval(report, input?.progressIntervalMs ?? 100);

  let socketShortages = 0;
  try {
    // A failing UDP socket (e.g. no IPv4) must not fail the TCP half of the probe.
    const rmcp =
      rmcpPort > 0
        ? collectPongs(addresses, { port: rmcpPort, ...input?.rmcp, signal, onPong: (address, pong) => found.ponged(address, pong) }).catch(() => undefined)
        : Promise.resolve();
    const tcp = probeAddresses(addresses, {
      ports: tcpPorts,
      maxInFlight: Math.max(1, Math.floor(input?.concurrency ?? 128)),
      ratePerSecond: Math.max(0, input?.ratePerSecond ?? 0),
      rtt,
      signal,
      ...(input?.turns ? { turns: new TurnTable(input.turns) } : {}),
      onProbeDecided: () => void probesDecided++,
      onAddressDone: (address, openPorts) => {
        found.tcpFinished(address, openPorts);
        tcpDone++;
      },
    });
    const [engine] = await Promise.all([tcp, rmcp]);
    socketShortages = engine.socketShortages;
  } finally {
    clearInterval(ticker);
  }

  const candidates = found.all(addresses);
  const output: ProbeBatchOutput = {
    probed: signal.aborted ? tcpDone : addresses.length,
    candidates,
    cancelled: signal.aborted,
    elapsedMs: Math.round(performance.now() - started),
    probesDecided,
    timeoutMs: Math.round(rtt.timeoutMs()),
    socketShortages,
  };
  tools.progress({ probed: output.probed, total: addresses.length, found: candidates.length, probesDecided, probesTotal });
  return output;
}
