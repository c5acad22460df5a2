/**
 * Benchmark (not run by npm test): how many concurrent hub clients one gateway serves during a
 * scan, and how late ScanProgress reaches them. The gateway runs in this process with the hub at
 * its defaults and the event-source fixture playing a 10 s scan (1000 discoveries, a progress every
 * 100 ms); the clients run in a child process.
 *
 *   npx tsx test/bench/hub-fanout.ts [clients ...]     (default: 100 1000 3000)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { playScan, startHubGateway } from '../plugins/scan-hub/hub-test-kit.js';
import { describeMachine, loadAverage, machineInfo } from './machine.js';
import { readRss } from './process-rss.js';

const CLIENT_SCRIPT = fileURLToPath(new URL('./hub-bench-clients.ts', import.meta.url));
const SCAN = { devices: 1000, steps: 100, intervalMs: 100 };

interface Report {
  kind: 'report';
  clients: number;
  completed: number;
  closedEarly: number;
  progressPerClient: [number, number];
  discoveredPerClient: [number, number];
  allEndedAt100: boolean;
  latencyMs: { samples: number; p50: number; p95: number; p99: number; max: number };
}

function nextMessage<T>(child: ChildProcess, kind: string, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${kind}' from the client process within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (m: { kind: string }) => {
      if (m.kind !== kind) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
  });
}

async function main(): Promise<void> {
  const counts = process.argv.slice(2).map(Number).filter((n) => n > 0);
  const rounds = counts.length > 0 ? counts : [100, 1000, 3000];
  console.log(`machine: ${describeMachine(machineInfo())}; load ${loadAverage()}`);
  // Every client signs in as the admin: the per-user bound is lifted for the swarm.
  const gw = await startHubGateway({ hub: { maxConnectionsPerUser: 100_000 } });
  const token = await gw.login();
  const url = `${gw.url.replace(/^http/, 'ws')}/scanHub?access_token=${encodeURIComponent(token)}`;
  try {
    for (const count of rounds) {
      const child = fork(CLIENT_SCRIPT, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      try {
        const ready = nextMessage(child, 'ready', 120_000);
        child.send({ url, count });
        await ready;
        const rssBefore = readRss(process.pid)?.rssKiB ?? 0;
        const cpuBefore = process.cpuUsage();
        const done = nextMessage<Report>(child, 'report', 180_000);
        const t0 = performance.now();
        await playScan(gw, token, SCAN);
        const report = await done;
        const elapsed = performance.now() - t0;
        const rssAfter = readRss(process.pid)?.rssKiB ?? 0;
        const cpu = process.cpuUsage(cpuBefore);
        const l = report.latencyMs;
        console.log(
          `${count} clients: ${report.completed}/${report.clients} saw the whole scan in ${(elapsed / 1000).toFixed(2)} s ` +
            `(ideal ${(SCAN.steps * SCAN.intervalMs) / 1000} s); discoveries per client ${report.discoveredPerClient.join('-')}, ` +
            `progress per client ${report.progressPerClient.join('-')}, all ended at 100 %: ${report.allEndedAt100}, dropped ${report.closedEarly}; ` +
            `progress latency ms p50 ${l.p50.toFixed(1)} p95 ${l.p95.toFixed(1)} p99 ${l.p99.toFixed(1)} max ${l.max.toFixed(1)} (${l.samples} samples); ` +
            `gateway CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s, RSS ${(rssBefore / 1024).toFixed(0)} -> ${(rssAfter / 1024).toFixed(0)} MiB; load ${loadAverage()}`,
        );
      } finally {
        child.kill();
      }
    }
  } finally {
    await gw.cleanup();
  }
}

await main();
