/**
 * Task `probe-batch`: finds AMT candidates among a batch of addresses. TCP connect probes of the HTTP
 * and TLS management ports run with bounded concurrency while one UDP socket pings the whole batch
 * (paced) and collects presence pongs. Reports progress about every 100 ms.
 */
import { isIP } from 'node:net';
import type { TaskTools } from '../task-api.js';
import { DEFAULT_PORTS } from '../amt/device-target.js';
import { ProbeCandidates } from '../amt/probe-candidates.js';
import { collectPongs } from '../amt/rmcp-collector.js';
import { createTcpProber, forEachBounded } from '../amt/tcp-probe.js';
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
  const concurrency = Math.max(1, Math.floor(input?.concurrency ?? 128));

  const found = new ProbeCandidates(rmcpPort);
  let tcpDone = 0;
  const report = (): void => {
    const complete = found.takeComplete();
    tools.progress({ probed: tcpDone, total: addresses.length, found: found.found, ...(complete.length ? { candidates: complete } : {}) });
  };
  const ticker = setInterval(report, input?.progressIntervalMs ?? 100);
  const prober = createTcpProber(connectTimeoutMs, signal);

  try {
    // A failing UDP socket (e.g. no IPv4) must not fail the TCP half of the probe.
    const rmcp =
      rmcpPort > 0
        ? collectPongs(addresses, {
            port: rmcpPort,
            ...input?.rmcp,
            signal,
            onPong: (address, pong) => found.ponged(address, pong),
          }).catch(() => undefined)
        : Promise.resolve();
    const tcp = forEachBounded(
      addresses,
      Math.max(1, Math.floor(concurrency / Math.max(1, tcpPorts.length))),
      async (address) => {
        const results = await Promise.all(tcpPorts.map((port) => prober.probe(address, port)));
        found.tcpFinished(address, tcpPorts.filter((_, i) => results[i]));
        if (!signal.aborted) tcpDone++;
      },
      signal,
    );
    await Promise.all([tcp, rmcp]);
  } finally {
    clearInterval(ticker);
    prober.close();
  }

  const candidates = found.all(addresses);
  const output: ProbeBatchOutput = {
    probed: signal.aborted ? tcpDone : addresses.length,
    candidates,
    cancelled: signal.aborted,
    elapsedMs: Math.round(performance.now() - started),
  };
  tools.progress({ probed: output.probed, total: addresses.length, found: candidates.length });
  return output;
}
