/**
 * 13. Activation (`npm run bench -- activation`, `--activation-machines N`, default 1,000): N
 * unprovisioned simulated machines (a process of their own, each answering every request after its
 * own delay, 50-400 ms as firmware does) activate at once through their agents against one gateway
 * process (activation + cira) with a client-control-mode CIRA profile; every one must be activated
 * and have dialled in. Figures: the WS-Management requests each activation made (counted by the
 * simulated firmware) beside RPS 2.40.0's for the same profile (27 for client control mode on the LAN,
 * 40 with CIRA, as issue 34 measured them), the wall time beside the floor (the slowest machine's
 * requests times its delay: the serial round trips its activation needs; no wait is made anywhere),
 * and the gateway's CPU and RSS per activation. The LAN profile's requests come from 10 machines first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { freePort } from './free-port.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess, type BenchGateway } from './gateway-process.js';
import { missingPlugins } from './plugin-availability.js';
import { readCpuSeconds } from './process-rss.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIELD = fileURLToPath(new URL('./activation-field.ts', import.meta.url));
/** RPS 2.40.0 against a simulated machine (issue 34): requests per activation, and its wait after Setup. */
const RPS = { ccmLan: 27, ccmCira: 40, waitS: 12 } as const;

interface FieldRun {
  child: ChildProcess;
  next(): Promise<Record<string, unknown>>;
  go(): void;
  stop(): Promise<void>;
}

function startField(url: string, count: number, base: string, profile: string, delay: string | null): FieldRun {
  const child = spawn(process.execPath, ['--import', 'tsx', FIELD, '--url', url, '--count', String(count), '--base', base, '--profile', profile, ...(delay ? ['--delay', delay] : [])], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const queue: Array<Record<string, unknown>> = [];
  const waiters: Array<(line: Record<string, unknown>) => void> = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const line = JSON.parse(text) as Record<string, unknown>;
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else queue.push(line);
  });
  return {
    child,
    next: () => (queue.length ? Promise.resolve(queue.shift()!) : new Promise((resolve) => waiters.push(resolve))),
    go: () => child.stdin!.write('go\n'),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.stdin!.end();
        setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
      }),
  };
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

async function lanRequests(gateway: BenchGateway, log: (line: string) => void): Promise<number[]> {
  const field = startField(`${gateway.url.replace(/^http/, 'ws')}/activate`, 10, '127.203.100.1', 'bench-ccm-lan', null);
  await field.next();
  field.go();
  const outcome = await field.next();
  await field.next();
  await field.stop();
  log(`LAN profile: ${String(outcome['activated'])} of 10 activated`);
  return outcome['requests'] as number[];
}

export const activation: Benchmark = {
  name: 'activation',
  title: 'Activation of unprovisioned machines (rpc-go protocol)',
  unavailable: () => missingPlugins(['activation', 'cira']),
  async run({ options, workDir, log }) {
    const n = options.activationMachines;
    const ciraPort = await freePort();
    const gateway = await startGatewayProcess({
      dataDir: workDir,
      plugins: { activation: { options: { maxSessions: n + 100 } }, cira: { options: { port: ciraPort, keepAliveIntervalSeconds: 10, keepAliveTimeoutSeconds: 30 } } },
    });
    const client = new GatewayClient(gateway.url);
    try {
      await client.login();
      await client.json('POST', '/api/activation/profiles', { name: 'bench-ccm-cira', mode: 'ccm', connection: 'cira' });
      await client.json('POST', '/api/activation/profiles', { name: 'bench-ccm-lan', mode: 'ccm', connection: 'lan' });
      const lan = await lanRequests(gateway, log);
      const field = startField(`${gateway.url.replace(/^http/, 'ws')}/activate`, n, '127.203.0.1', 'bench-ccm-cira', '50-400');
      log(`${String((await field.next())['ready'])} machines ready`);
      const rssBefore = gateway.rss();
      const cpuBefore = readCpuSeconds(gateway.pid) ?? 0;
      const fieldCpuBefore = readCpuSeconds(field.child.pid!) ?? 0;
      field.go();
      const outcome = await field.next();
      log(`activated ${String(outcome['activated'])} of ${n} in ${Math.round(Number(outcome['wallMs']))} ms (floor ${Math.round(Number(outcome['floorMs']))} ms)`);
      const dial = await field.next();
      const cpu = (readCpuSeconds(gateway.pid) ?? 0) - cpuBefore;
      const fieldCpu = (readCpuSeconds(field.child.pid!) ?? 0) - fieldCpuBefore;
      // The wall time cannot be shorter than the CPU the run needs spread over every CPU of this machine.
      const cpus = availableParallelism();
      const cpuFloorS = (cpu + fieldCpu) / cpus;
      let tunnels = 0;
      for (let i = 0; i < 20 && tunnels < n; i++) {
        tunnels = Number((await client.request('GET', '/api/cira/connections?limit=1')).headers.get('x-total-count'));
        if (tunnels < n) await sleep(500);
      }
      const rssAfter = gateway.rss();
      await field.stop();
      const requests = outcome['requests'] as number[];
      const count = n.toLocaleString('en-US');
      const figures: Figure[] = [
        { label: 'WS-Management requests per activation, client control mode, LAN profile (mean of 10)', unit: 'requests', gateway: mean(lan), reference: RPS.ccmLan, better: 'lower', note: `reference: RPS 2.40.0 (issue 34); min ${Math.min(...lan)}, max ${Math.max(...lan)}` },
        { label: `WS-Management requests per activation, client control mode with CIRA (mean of ${count})`, unit: 'requests', gateway: mean(requests), reference: RPS.ccmCira, better: 'lower', note: `reference: RPS 2.40.0; min ${Math.min(...requests)}, max ${Math.max(...requests)}` },
        { label: `${count} machines activated at once (50-400 ms firmware): wall time to every success, s`, unit: 's', gateway: Number(outcome['wallMs']) / 1000, reference: Number(outcome['floorMs']) / 1000, better: 'lower', note: `target <= 1.2 x the floor (the slowest machine's requests x its delay; no wait); RPS waits ${RPS.waitS} s after Setup alone` },
        { label: `activated (of ${count})`, unit: 'machines', gateway: Number(outcome['activated']), reference: n, better: 'higher', note: (outcome['errors'] as string[]).length ? `errors: ${(outcome['errors'] as string[]).join('; ')}` : 'every one' },
        { label: `dialled in (tunnel up, seen by the machines / by the gateway)`, unit: 'machines', gateway: Number(dial['dialed']), reference: n, better: 'higher', note: `the gateway lists ${tunnels} tunnels` },
        { label: 'wall time until every machine dialled in, s', unit: 's', gateway: dial['dialMs'] === null ? null : Number(dial['dialMs']) / 1000, reference: Number(outcome['floorMs']) / 1000, better: 'lower', note: 'includes the simulated firmware\'s 200 ms settle before it dials, and the TLS and APF handshakes' },
        { label: `CPU floor on this machine: (gateway + machines and agents) CPU / ${cpus} CPUs, s`, unit: 's', gateway: cpuFloorS, reference: (1.2 * Number(outcome['floorMs'])) / 1000, better: 'lower', note: `reference: the target (1.2 x the serial floor); gateway ${cpu.toFixed(1)} + machines and agents ${fieldCpu.toFixed(1)} CPU s; the gateway's share alone ${(cpu / cpus).toFixed(2)} s` },
        { label: 'gateway CPU per activation, ms', unit: 'ms', gateway: (cpu * 1000) / n, better: 'lower', note: `${cpu.toFixed(1)} CPU s in all, from go until every machine dialled in (tunnels' handshakes included)` },
        { label: `gateway RSS with ${count} activated machines' tunnels up, MiB`, unit: 'MiB', gateway: rssAfter ? rssAfter.rssKiB / 1024 : null, reference: rssBefore ? rssBefore.rssKiB / 1024 : null, better: 'lower', note: `reference: before the activations; peak ${rssAfter ? Math.round(rssAfter.peakKiB / 1024) : '?'} MiB; per activation ${rssAfter && rssBefore ? ((rssAfter.rssKiB - rssBefore.rssKiB) / n).toFixed(1) : '?'} KiB` },
      ];
      return {
        name: 'activation',
        title: 'Activation of unprovisioned machines (rpc-go protocol)',
        reference: "RPS 2.40.0's requests (issue 34); the serial floor; the gateway before",
        figures,
        notes: [
          'Gateway (tsx) with activation + cira; machines and agents in one child process, each machine on its own 127.203.x.y, its local management port answered by the simulated firmware after its delay (drawn once per machine from 50-400 ms), each agent relaying as rpc-go does (a fresh connection per request).',
          'Requests are every HTTP request the firmware answered, its Digest challenges included (one per activation): see plugins/activation/PROTOCOL.md for each one RPS makes that the gateway does not.',
        ],
      };
    } finally {
      await gateway.stop();
    }
  },
};
