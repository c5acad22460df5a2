/**
 * Task `presence-sweep`: is each of a batch of known devices there? One UDP socket pings the whole
 * batch (paced) and collects presence pongs; the devices that stay silent get a TCP connect to their
 * management ports, one port after the other within the device's turn (the device gate's turn table:
 * never beside another connection of the gateway), so a device with the ping disabled or a lost
 * datagram still counts as present.
 */
import type { TaskTools } from '../task-api.js';
import { collectPongs } from '../amt/rmcp-collector.js';
import { forEachBounded, probeTcpPort } from '../amt/tcp-probe.js';
import { CONNECTION_SETTLE_MS, TurnTable } from '../amt/turn-table.js';
import { setTimeout as delay } from 'node:timers/promises';
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

/** The first port of `ports` that accepts a connection, or null; one after the other, so the device sees one connection. */
async function firstOpenPort(address: string, ports: number[], timeoutMs: number, signal: AbortSignal): Promise<number | null> {
  for (const port of ports) {
    if (await probeTcpPort(address, port, timeoutMs, signal)) return port;
    if (signal.aborted) break;
  }
  return null;
}

/** The device's turn, waited for at most `waitMs`: its slot, or -1 when the gateway kept talking to it (or the sweep was cancelled). */
function takeTurn(turns: TurnTable, address: string, waitMs: number, signal: AbortSignal): Promise<number> {
  return turns.take(address, signal, waitMs).catch(() => -1);
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
  const turns = input.turns ? new TurnTable(input.turns) : undefined;
  let tcpChecked = 0;
  await forEachBounded(
    silent,
    Math.max(1, input.tcpConcurrency ?? 64),
    async (target) => {
      const turn = turns ? await takeTurn(turns, target.address, timeoutMs * target.tcpPorts.length, signal) : -1;
      if (signal.aborted) return;
      if (turns && turn < 0) return void answers.set(target.address, { alive: false, via: null, port: null, busy: true });
      try {
        const port = await firstOpenPort(target.address, target.tcpPorts, timeoutMs, signal);
        if (signal.aborted) return;
        tcpChecked++;
        if (port !== null) answers.set(target.address, { alive: true, via: 'tcp', port });
        // The device took a connection: it is given time to take in the close before the next one.
        if (port !== null && turn >= 0) await delay(CONNECTION_SETTLE_MS, undefined, { signal }).catch(() => undefined);
      } finally {
        if (turn >= 0) turns!.give(turn);
      }
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
