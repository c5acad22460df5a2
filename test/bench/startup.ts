/**
 * 6. Start-up and memory, compiled against today's tsx start: the gateway as a site runs it
 * (`node dist/core/main.js`, what the `amt-gateway` bin runs: one process) beside `npm run dev`
 * (npm → sh → tsx → node, what `npm start` ran before the build), in the same run: idle RSS with
 * every plugin and an empty store, spawn to the first 200 from /api/health with an empty store and
 * with 100,000 devices (median of several runs each), and the peak RSS of the /16 sweep with the
 * 1,000-device fleet. Builds dist/ first when it is missing or stale.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseCidr } from '../../core/net/ipv4.js';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { startBenchFleet } from './fleet-process.js';
import { startGatewayProcess, type GatewayRunner, type PluginChoice } from './gateway-process.js';
import { percentile } from './latency.js';
import { everyAvailablePlugin } from './plugin-availability.js';
import { mib } from './process-rss.js';
import { seedDevices } from './seed-devices.js';
import { gatewaySweep, type GatewaySweep } from './sweep.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** After serving, the worker threads preload the tasks (from 500 ms on); idle is measured after that. */
const IDLE_SETTLE_MS = 3000;
const TARGETS = { idleMiB: 120, emptyMs: 600, fullMs: 1500, sweepPeakMiB: 250 };

interface RunnerFigures {
  firstKiB: number;
  idleKiB: number;
  processes: number;
  emptyMs: number[];
  fullMs: number[];
  emptyCpuMs: number[];
  fullCpuMs: number[];
  sweep?: GatewaySweep;
}

const RUNNERS: { runner: GatewayRunner; label: string }[] = [
  { runner: 'compiled', label: 'node dist/core/main.js' },
  { runner: 'npm-dev', label: 'npm run dev (npm → sh → tsx → node)' },
];

/** One warm-up start (first-start work: admin user, caches), then `runs` measured ones. */
async function measureStarts(dataDir: string, plugins: Record<string, PluginChoice>, runs: number, runner: GatewayRunner): Promise<{ ms: number[]; cpuMs: number[] }> {
  const out = { ms: [] as number[], cpuMs: [] as number[] };
  for (let i = 0; i <= runs; i++) {
    const gateway = await startGatewayProcess({ dataDir, plugins, runner });
    await gateway.stop();
    if (i === 0) continue;
    out.ms.push(gateway.startMs);
    out.cpuMs.push(gateway.startCpuSeconds * 1000);
  }
  return out;
}

/** Idle RSS of a first start (it also creates the admin user: scrypt) and of the next start on the same store. */
async function measureIdle(dataDir: string, plugins: Record<string, PluginChoice>, runner: GatewayRunner): Promise<{ firstKiB: number; idleKiB: number; processes: number }> {
  const idleOf = async () => {
    const gateway = await startGatewayProcess({ dataDir, plugins, runner });
    try {
      await sleep(IDLE_SETTLE_MS);
      return { kib: gateway.treeRss()?.rssKiB ?? 0, processes: gateway.processes() };
    } finally {
      await gateway.stop();
    }
  };
  const first = await idleOf();
  const next = await idleOf();
  return { firstKiB: first.kib, idleKiB: next.kib, processes: next.processes };
}

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
const runsOf = (values: number[]) => values.map((m) => m.toFixed(0)).join(', ');

function ensureBuild(log: (line: string) => void): void {
  log('building dist/ if stale');
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed; the compiled gateway cannot be measured');
}

export const startup: Benchmark = {
  name: 'startup',
  title: 'Start-up',
  async run({ options, workDir, log }) {
    ensureBuild(log);
    const plugins = everyAvailablePlugin();
    const size = 2 ** (32 - parseCidr(options.range)!.prefix);
    const results = new Map<GatewayRunner, RunnerFigures>();
    log(`seeding ${options.stored} devices`);
    const fullTemplate = join(workDir, 'full');
    mkdirSync(fullTemplate);
    await seedDevices(fullTemplate, options.stored);
    for (const { runner } of RUNNERS) {
      const empty = join(workDir, `empty-${runner}`);
      mkdirSync(empty);
      log(`${runner}: idle RSS, empty store`);
      const idle = await measureIdle(empty, plugins, runner);
      log(`${runner}: start-ups with an empty store (1 warm-up + ${options.startupRuns})`);
      const emptyStarts = await measureStarts(empty, plugins, options.startupRuns, runner);
      log(`${runner}: start-ups with ${options.stored} devices (1 warm-up + ${options.startupRuns})`);
      const fullStarts = await measureStarts(fullTemplate, plugins, options.startupRuns, runner);
      results.set(runner, { ...idle, emptyMs: emptyStarts.ms, emptyCpuMs: emptyStarts.cpuMs, fullMs: fullStarts.ms, fullCpuMs: fullStarts.cpuMs });
    }
    log(`starting ${options.devices} simulated devices for the sweeps of ${options.range}`);
    const fleet = await startBenchFleet(options.devices);
    try {
      for (const { runner } of RUNNERS) {
        log(`${runner}: sweep of ${options.range}`);
        results.get(runner)!.sweep = await gatewaySweep(join(workDir, `sweep-${runner}`), options.range, size, runner);
      }
    } finally {
      await fleet.stop();
    }
    const compiled = results.get('compiled')!;
    const reference = results.get('npm-dev')!;
    const stored = options.stored.toLocaleString('en-US');
    const figures: Figure[] = [
      { label: 'idle RSS, every plugin, empty store', unit: 'MiB', gateway: mib(compiled.idleKiB), reference: mib(reference.idleKiB), better: 'lower', note: `processes: ${compiled.processes} (reference ${reference.processes}); first start ${mib(compiled.firstKiB).toFixed(0)} MiB (reference ${mib(reference.firstKiB).toFixed(0)}); target ≤ ${TARGETS.idleMiB} MiB` },
      { label: 'start to first 200, empty store, median', unit: 'ms', gateway: median(compiled.emptyMs), reference: median(reference.emptyMs), better: 'lower', note: `runs: ${runsOf(compiled.emptyMs)} (reference ${runsOf(reference.emptyMs)}); target ≤ ${TARGETS.emptyMs} ms` },
      { label: `start to first 200, ${stored} devices, median`, unit: 'ms', gateway: median(compiled.fullMs), reference: median(reference.fullMs), better: 'lower', note: `runs: ${runsOf(compiled.fullMs)} (reference ${runsOf(reference.fullMs)}); target ≤ ${TARGETS.fullMs} ms` },
      { label: 'CPU time until the first 200, empty store, median', unit: 'ms', gateway: median(compiled.emptyCpuMs), reference: median(reference.emptyCpuMs), better: 'lower', note: `every process and thread of the start command; runs: ${runsOf(compiled.emptyCpuMs)} (reference ${runsOf(reference.emptyCpuMs)})` },
      { label: `CPU time until the first 200, ${stored} devices, median`, unit: 'ms', gateway: median(compiled.fullCpuMs), reference: median(reference.fullCpuMs), better: 'lower', note: `runs: ${runsOf(compiled.fullCpuMs)} (reference ${runsOf(reference.fullCpuMs)})` },
      { label: `peak RSS, sweep of ${options.range} with ${fleet.count.toLocaleString('en-US')} devices`, unit: 'MiB', gateway: mib(compiled.sweep!.treePeakKiB), reference: mib(reference.sweep!.treePeakKiB), better: 'lower', note: `found ${compiled.sweep!.found} in ${compiled.sweep!.seconds.toFixed(1)} s (reference ${reference.sweep!.found} in ${reference.sweep!.seconds.toFixed(1)} s); target ≤ ${TARGETS.sweepPeakMiB} MiB` },
    ];
    const met = [
      mib(compiled.idleKiB) <= TARGETS.idleMiB,
      (median(compiled.emptyMs) ?? Infinity) <= TARGETS.emptyMs,
      (median(compiled.fullMs) ?? Infinity) <= TARGETS.fullMs,
      mib(compiled.sweep!.treePeakKiB) <= TARGETS.sweepPeakMiB,
    ];
    const notes = [
      `Gateway: ${RUNNERS[0]!.label}, as the \`amt-gateway\` bin runs it. Reference: ${RUNNERS[1]!.label}, today's tsx start (what \`npm start\` ran before the build). RSS is summed over every process of the start command (worker threads count in their process); a peak is the sum of each process's VmHWM.`,
      `Plugins for idle and start-up: ${Object.entries(plugins).map(([name, p]) => (p.path ? `${name} (benchmark fixture)` : name)).join(', ')}; start-up is timed from spawn to the first 200 from GET /api/health (polled every 5 ms), after one warm-up start per store; idle RSS is read ${IDLE_SETTLE_MS / 1000} s after serving, on the second start of an empty store (the first also creates the admin user, whose scrypt hash leaves its memory resident: noted beside the figure). The sweep runs rest-api alone with its default scan settings, as the sweep benchmark does.`,
      `Targets met (idle RSS, empty start, ${stored}-device start, sweep peak): ${met.map((m) => (m ? 'yes' : 'NO')).join(', ')}.`,
    ];
    return { name: 'startup', title: `Start-up and memory: compiled gateway against today's tsx start`, reference: RUNNERS[1]!.label, figures, notes };
  },
};
