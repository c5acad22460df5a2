/**
 * Task `presence-sweep`: is each of a batch of known devices there? One UDP socket pings the whole
 * batch (paced) and collects presence pongs; the devices that stay silent get a TCP connect to their
 * management ports, so a device with the ping disabled or a lost datagram still counts as present.
 */
import type { TaskTools } from '../task-api.js';
import { collectPongs } from '../amt/rmcp-collector.js';
import { forEachBounded, probeTcpPort } from '../amt/tcp-probe.js';
import type { PresenceSweepInput, PresenceSweepOutput, PresenceSweepResult, PresenceSweepTarget } from './presence-sweep-types.js';

const validPort = (p: unknown): p is number => Number.isInteger(p) && (p as number) > 0 && (p as number) < 65536;

function distinctTargets(input: PresenceSweepInput): PresenceSweepTarget[] {
  const seen = new Map<string, PresenceSweepTarget>();
  for (const t of Array.isArray(input?.targets) ? input.targets : []) {
    if (typeof t?.address !== 'string' || seen.has(t.address)) continue;
    seen.set(t.address, { address: t.address, tcpPorts: Array.isArray(t.tcpPorts) ? t.tcpPorts.filter(validPort) : [] });
  }
  return [...seen.values()];
}

/** The first port of `ports` that accepts a connection, or null; all are tried at once. */
async function firstOpenPort(address: string, ports: number[], timeoutMs: number, signal: AbortSignal): Promise<number | null> {
  const open = await Promise.all(ports.map((port) => probeTcpPort(address, port, timeoutMs, signal)));
  const index = open.indexOf(true);
  return index < 0 ? null : ports[index]!;
}

export default async function presenceSweep(input: PresenceSweepInput, tools: TaskTools): Promise<PresenceSweepOutput> {
  const started = performance.now();
  const signal = tools.signal;
  const targets = distinctTargets(input);
  const answers = new Map<string, Omit<PresenceSweepResult, 'address'>>();

  if (validPort(input.rmcpPort)) {
    // A failing UDP socket (e.g. no IPv4) must not fail the sweep: the TCP fallback still runs.
    const pongs = await collectPongs(
      targets.map((t) => t.address),
      { port: input.rmcpPort, windowMs: 500, ...input.rmcp, signal },
    ).catch(() => new Map());
    for (const [address, pong] of pongs) answers.set(address, { alive: true, via: 'rmcp', port: pong.managementPort });
  }
  const pongCount = answers.size;

  const silent = targets.filter((t) => !answers.has(t.address) && t.tcpPorts.length > 0);
  const timeoutMs = input.connectTimeoutMs ?? 1_000;
  let tcpChecked = 0;
  await forEachBounded(
    silent,
    Math.max(1, input.tcpConcurrency ?? 64),
    async (target) => {
      const port = await firstOpenPort(target.address, target.tcpPorts, timeoutMs, signal);
      if (signal.aborted) return;
      tcpChecked++;
      if (port !== null) answers.set(target.address, { alive: true, via: 'tcp', port });
    },
    signal,
  );

  return {
    results: targets.map((t) => ({ address: t.address, ...(answers.get(t.address) ?? { alive: false, via: null, port: null }) })),
    pongs: pongCount,
    tcpChecked,
    cancelled: signal.aborted,
    elapsedMs: Math.round(performance.now() - started),
  };
}
