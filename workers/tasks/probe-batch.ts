/**
 * Task `probe-batch`: finds AMT candidates among a batch of addresses. TCP connect probes of the HTTP
 * and TLS management ports run with bounded concurrency while one UDP socket pings the whole batch
 * (paced) and collects presence pongs. Reports progress about every 100 ms.
 */
import { isIP } from 'node:net';
import type { TaskTools } from '../task-api.js';
import { DEFAULT_PORTS } from '../amt/device-target.js';
import { collectPongs } from '../amt/rmcp-collector.js';
import type { RmcpPong } from '../amt/rmcp-codec.js';
import { createTcpProber, forEachBounded } from '../amt/tcp-probe.js';
import type { ProbeBatchInput, ProbeBatchOutput, ProbeBatchProgress, ProbeCandidate } from './task-types.js';

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
  const concurrency = Math.max(1, Math.floor(input?.concurrency ?? 128));

  const open = new Map<string, Set<number>>();
  const pongs = new Map<string, RmcpPong>();
  const foundSet = new Set<string>();
  let tcpDone = 0;
  const report = (): void => tools.progress({ probed: tcpDone, total: addresses.length, found: foundSet.size });
  const ticker = setInterval(report, input?.progressIntervalMs ?? 100);
  const prober = createTcpProber(connectTimeoutMs, signal);

  try {
    const onPong = (address: string, pong: RmcpPong): void => {
      pongs.set(address, pong);
      foundSet.add(address);
    };
    // A failing UDP socket (e.g. no IPv4) must not fail the TCP half of the probe.
    const rmcp = rmcpPort > 0 ? collectPongs(addresses, { port: rmcpPort, ...input?.rmcp, signal, onPong }).catch(() => undefined) : Promise.resolve();
    const tcp = forEachBounded(
      addresses,
      Math.max(1, Math.floor(concurrency / Math.max(1, tcpPorts.length))),
      async (address) => {
        const results = await Promise.all(tcpPorts.map((port) => prober.probe(address, port)));
        results.forEach((isOpen, i) => {
          if (!isOpen) return;
          const ports = open.get(address) ?? new Set<number>();
          ports.add(tcpPorts[i]!);
          open.set(address, ports);
          foundSet.add(address);
        });
        if (!signal.aborted) tcpDone++;
      },
      signal,
    );
    await Promise.all([tcp, rmcp]);
  } finally {
    clearInterval(ticker);
    prober.close();
  }

  const candidates: ProbeCandidate[] = [];
  for (const address of addresses) {
    const ports = new Set(open.get(address) ?? []);
    const pong = pongs.get(address) ?? null;
    if (pong) ports.add(rmcpPort);
    if (ports.size === 0) continue;
    candidates.push({ address, openPorts: [...ports].sort((a, b) => a - b), pong });
  }
  const output: ProbeBatchOutput = {
    probed: signal.aborted ? tcpDone : addresses.length,
    candidates,
    cancelled: signal.aborted,
    elapsedMs: Math.round(performance.now() - started),
  };
  tools.progress({ probed: output.probed, total: addresses.length, found: candidates.length });
  return output;
}
