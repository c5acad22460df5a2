/**
 * Start-up: spawn to serving (the first 200 from /api/health) of the compiled gateway as the bin runs
 * it (`node dist/core/main.js` with the shebang's flags and environment, the default configuration's
 * plugins), beside a bare Koa server bundled and run the same way (startup-reference.ts), in
 * alternating rounds: on an empty store (restarts), on a store's very first start, with 100,000
 * devices stored; the phases the gateway logs with "gateway serving"; idle RSS; `npm start` beside
 * the bin. BENCH_STARTUP_BASE=<dir> (another build, e.g. a `git archive` of main built with
 * node_modules linked) runs that build's gateway in the same rounds, for a before/after.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { startGatewayProcess, type GatewayRunner, type PluginChoice } from './gateway-process.js';
import { percentile } from './latency.js';
import { everyAvailablePlugin } from './plugin-availability.js';
import { mib } from './process-rss.js';
import { seedDevices } from './seed-devices.js';
import { bundleReference, startReference } from './startup-reference.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** After serving, idle memory is read once the start's garbage had time to be collected. */
const IDLE_SETTLE_MS = 3000;
const TARGETS = { emptyMs: 500, fullMs: 1500, idleMiB: 120 };

interface Sample {
  ms: number;
  cpuMs: number;
  /** The gateway's `startupMs` from its "gateway serving" line. */
  phases?: Record<string, number>;
}

/** The plugins config/default.json enables, as a site with no plugin settings runs them. */
function defaultPlugins(): Record<string, PluginChoice> {
  const defaults = JSON.parse(readFileSync(join(ROOT, 'config/default.json'), 'utf8')) as { plugins: Record<string, { enable: boolean }> };
  const plugins: Record<string, PluginChoice> = {};
  for (const [name, setting] of Object.entries(defaults.plugins)) if (setting.enable) plugins[name] = name === 'soap-mps' ? { options: { port: 0 } } : {};
  return plugins;
}

function phasesOf(output: string): Record<string, number> | undefined {
  const line = output.split('\n').find((l) => l.includes('"msg":"gateway serving"'));
  return line ? (JSON.parse(line) as { startupMs?: Record<string, number> }).startupMs : undefined;
}

async function gatewayStart(dataDir: string, plugins: Record<string, PluginChoice>, runner: GatewayRunner = 'compiled', root?: string): Promise<Sample> {
  const gateway = await startGatewayProcess({ dataDir, plugins, runner, logLevel: 'info', ...(root ? { root } : {}) });
  const sample = { ms: gateway.startMs, cpuMs: gateway.startCpuSeconds * 1000, phases: phasesOf(gateway.output()) };
  await gateway.stop();
  return sample;
}

async function referenceStart(bundle: string, logDir: string): Promise<Sample> {
  const reference = await startReference(bundle, logDir);
  await reference.stop();
  return { ms: reference.startMs, cpuMs: reference.startCpuSeconds * 1000 };
}

/** `rounds` rounds of every start given, the order turned each round, after one unmeasured start of each. */
async function alternate(rounds: number, starts: Array<() => Promise<Sample>>): Promise<Sample[][]> {
  const samples = starts.map(() => [] as Sample[]);
  for (const start of starts) await start();
  for (let round = 0; round < rounds; round++) {
    const order = starts.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) samples[i]!.push(await starts[i]!());
  }
  return samples;
}

const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50) ?? NaN;
const runsOf = (values: number[]) => values.map((m) => m.toFixed(0)).join(', ');
const ms = (samples: Sample[]) => median(samples.map((s) => s.ms));
const cpu = (samples: Sample[]) => median(samples.map((s) => s.cpuMs));

function medianPhases(samples: Sample[]): Array<[string, number]> {
  const names = Object.keys(samples.find((s) => s.phases)?.phases ?? {});
  return names.map((name) => [name, median(samples.flatMap((s) => (s.phases?.[name] === undefined ? [] : [s.phases[name]!])))]);
}

async function idleRss(dataDir: string, plugins: Record<string, PluginChoice>): Promise<number> {
  const gateway = await startGatewayProcess({ dataDir, plugins, runner: 'compiled' });
  try {
    await sleep(IDLE_SETTLE_MS);
    return gateway.rss()?.rssKiB ?? 0;
  } finally {
    await gateway.stop();
  }
}

async function referenceIdleRss(bundle: string, logDir: string): Promise<number> {
  const reference = await startReference(bundle, logDir);
  try {
    await sleep(IDLE_SETTLE_MS);
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${reference.child.pid}/status`, 'utf8'))?.[1] ?? 0);
  } finally {
    await reference.stop();
  }
}

/** Milliseconds of `npm start`'s staleness check alone (node scripts/build.mjs --if-stale on a built tree). */
function stalenessCheckMs(): number {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'ignore' });
    runs.push(performance.now() - started);
  }
  return median(runs);
}

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
    const bundle = await bundleReference(workDir);
    const plugins = defaultPlugins();
    const base = process.env.BENCH_STARTUP_BASE;
    const runs = options.startupRuns;
    const dir = (name: string) => {
      const path = join(workDir, name);
      mkdirSync(path, { recursive: true });
      return path;
    };
    const empty = dir('empty');
    const baseEmpty = dir('base-empty');

    log(`empty store: ${runs} rounds of gateway and reference${base ? ` and ${base}` : ''}`);
    const [gatewayEmpty, referenceEmpty, baseRuns] = await alternate(runs, [
      () => gatewayStart(empty, plugins),
      () => referenceStart(bundle, workDir),
      ...(base ? [() => gatewayStart(baseEmpty, plugins, 'compiled', base)] : []),
    ]);

    let fresh = 0;
    const firstRounds = Math.min(runs, 5);
    log(`first starts of an empty data directory: ${firstRounds} rounds`);
    const [gatewayFirst, referenceFirst] = await alternate(firstRounds, [() => gatewayStart(dir(`first-${fresh++}`), plugins), () => referenceStart(bundle, workDir)]);

    log(`seeding ${options.stored} devices`);
    const full = dir('full');
    await seedDevices(full, options.stored);
    log(`${options.stored} devices: ${runs} rounds`);
    const [gatewayFull, referenceFull] = await alternate(runs, [() => gatewayStart(full, plugins), () => referenceStart(bundle, workDir)]);

    log('idle RSS');
    const idleDefault = await idleRss(empty, plugins);
    const issue12Plugins = everyAvailablePlugin();
    const idleIssue12 = await idleRss(dir('idle-issue-12'), issue12Plugins);
    const idleReference = await referenceIdleRss(bundle, workDir);

    log(`npm start beside the bin: ${runs} rounds`);
    const [npmStart, binStart] = await alternate(runs, [() => gatewayStart(empty, plugins, 'npm-start'), () => gatewayStart(empty, plugins)]);
    const staleness = stalenessCheckMs();

    const stored = options.stored.toLocaleString('en-US');
    const figures: Figure[] = [
      { label: 'spawn to serving, empty store, median', unit: 'ms', gateway: ms(gatewayEmpty!), reference: ms(referenceEmpty!), better: 'lower', note: `runs: ${runsOf(gatewayEmpty!.map((s) => s.ms))} (reference ${runsOf(referenceEmpty!.map((s) => s.ms))}); target ≤ ${TARGETS.emptyMs} ms` },
      { label: 'CPU until serving, empty store, median', unit: 'ms', gateway: cpu(gatewayEmpty!), reference: cpu(referenceEmpty!), better: 'lower', note: `every thread; runs: ${runsOf(gatewayEmpty!.map((s) => s.cpuMs))}` },
      { label: 'spawn to serving, first start of an empty data directory', unit: 'ms', gateway: ms(gatewayFirst!), reference: ms(referenceFirst!), better: 'lower', note: `creates the master key and the admin user; runs: ${runsOf(gatewayFirst!.map((s) => s.ms))}` },
      { label: `spawn to serving, ${stored} devices, median`, unit: 'ms', gateway: ms(gatewayFull!), reference: ms(referenceFull!), better: 'lower', note: `runs: ${runsOf(gatewayFull!.map((s) => s.ms))}; target ≤ ${TARGETS.fullMs} ms` },
      { label: `CPU until serving, ${stored} devices, median`, unit: 'ms', gateway: cpu(gatewayFull!), reference: cpu(referenceFull!), better: 'lower' },
      { label: 'idle RSS, the default plugins, empty store', unit: 'MiB', gateway: mib(idleDefault), reference: mib(idleReference), better: 'lower', note: `target ≤ ${TARGETS.idleMiB} MiB` },
      { label: "idle RSS, issue 12's plugins, empty store", unit: 'MiB', gateway: mib(idleIssue12), reference: mib(idleReference), better: 'lower', note: Object.keys(issue12Plugins).join(', ') },
      { label: 'npm start: spawn to serving, empty store, median', unit: 'ms', gateway: ms(npmStart!), reference: ms(binStart!), better: 'lower', note: `reference: node dist/core/main.js in the same rounds; its staleness check alone ${staleness.toFixed(0)} ms` },
    ];
    const phases = medianPhases(gatewayEmpty!);
    const firstPhases = medianPhases(gatewayFirst!);
    const notes = [
      `Gateway: node dist/core/main.js with the bin's flags and environment, the plugins config/default.json enables (${Object.keys(plugins).join(', ')}), log level info. Reference: test/bench/fixtures/bare-koa-server.ts, bundled with the build's esbuild settings and run with the same flags: the least a Koa server does to answer GET /api/health. Spawn to the first 200 from GET /api/health, polled every 5 ms; rounds alternate, each kind started once unmeasured first.`,
      `Phases the gateway logged (startupMs, medians), empty store: ${phases.map(([n, v]) => `${n} ${v.toFixed(0)}`).join(', ')} ms; first start: ${firstPhases.map(([n, v]) => `${n} ${v.toFixed(0)}`).join(', ')} ms ("process" is node's own start, the imports of main and the kernel, and reading the configuration).`,
      ...(base ? [`Base build ${base}, same rounds: spawn to serving median ${ms(baseRuns!).toFixed(0)} ms (runs ${runsOf(baseRuns!.map((s) => s.ms))}), CPU ${cpu(baseRuns!).toFixed(0)} ms; phases ${medianPhases(baseRuns!).map(([n, v]) => `${n} ${v.toFixed(0)}`).join(', ')} ms.`] : []),
      `Targets met (empty store ≤ ${TARGETS.emptyMs} ms, ${stored} devices ≤ ${TARGETS.fullMs} ms, idle ≤ ${TARGETS.idleMiB} MiB): ${[ms(gatewayEmpty!) <= TARGETS.emptyMs, ms(gatewayFull!) <= TARGETS.fullMs, mib(idleDefault) <= TARGETS.idleMiB].map((m) => (m ? 'yes' : 'NO')).join(', ')}.`,
    ];
    return { name: 'startup', title: 'Start-up: the compiled gateway beside a bare Koa server', reference: 'a bare Koa server from the same kind of bundle, same flags', figures, notes };
  },
};
