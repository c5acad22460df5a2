/**
 * The gateway under test as its own process, so that its memory is measurable apart from the load
 * generator and the fleet: `node --import tsx core/main.ts --config <file>` by default, or as a site
 * runs it, compiled (`node dist/core/main.js`, what the `amt-gateway` bin runs; build first), through
 * `npm start` (npm, its staleness check of dist/, then node on dist/), or through `npm run dev`
 * (npm → sh → tsx → node, what `npm start` was before the build).
 * Set BENCH_CPU_PROF=<dir> to write a V8 CPU profile of every gateway process to that directory, and
 * BENCH_SITE='<json>' to merge settings into every gateway's site file (to try a change of settings),
 * BENCH_GATEWAY_FLAGS='--trace-gc ...' to add node flags to every gateway process, and
 * BENCH_GATEWAY_ENV='NAME=value ...' to set environment variables of every gateway process only (e.g. an
 * allocator setting to try, over the shebang's for the compiled runner).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { mergeConfig } from '../../core/config/load-config.js';
import { freePort } from './free-port.js';
import { readRss, type RssReading } from './process-rss.js';
import { gatewayProcess, processTree, treeCpuSeconds, treeRss } from './process-tree.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const ADMIN_PASSWORD = 'bench-admin-password-1';
/** A fixed master key so that a seeded data directory and the gateway agree. */
export const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
/** RMCP on an unprivileged port, on the fleet and in the gateway's settings. */
export const BENCH_RMCP_PORT = 16623;
/** Benchmarks only ever touch these loopback addresses. */
export const BENCH_NETWORK = '127.200.0.0/14';

export interface PluginChoice {
  options?: Record<string, unknown>;
  /** Loads the plugin from a module path instead of the built-in folder. */
  path?: string;
}

/** How the gateway is started; see the header. */
export type GatewayRunner = 'tsx' | 'compiled' | 'npm-start' | 'npm-dev';

export interface BenchGatewayOptions {
  dataDir: string;
  /** Default `tsx`. */
  runner?: GatewayRunner;
  /** Plugins to enable; every other built-in plugin is disabled. */
  plugins: Record<string, PluginChoice>;
  /** Extra site settings merged at the top level (e.g. `workers`). */
  site?: Record<string, unknown>;
  /** Log level of the gateway (default warn: no line per request). */
  logLevel?: string;
  /**
   * Preload fixtures/gc-probe.cjs (with --expose-gc), so that `memoryAfterGc()` reads the gateway's
   * memory after full collections. Benchmark-only; changes nothing else in the gateway.
   */
  gcProbe?: boolean;
  /**
   * Another build's directory (dist/ and config/, e.g. a `git archive` of another commit, built, with
   * node_modules linked) to run instead of this checkout's, for A/B runs; the compiled runner only.
   */
  root?: string;
}

/** The gateway's memory after forced full collections (fixtures/gc-probe.cjs). */
export interface GcReading {
  rssKiB: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** Worker threads that collected too. */
  workers: number;
}

export interface BenchGateway {
  pid: number;
  url: string;
  /** Milliseconds from spawning the process to the first 200 from /api/health. */
  startMs: number;
  /** CPU seconds the start command used until then (every process and thread): the start's cost apart from the machine's load. */
  startCpuSeconds: number;
  /** The gateway's own node process (for `npm-dev`, the last process of the chain). */
  rss(): RssReading | undefined;
  /** Every process of the start command (npm, sh, tsx's CLI, node): RSS summed, peaks summed. */
  treeRss(): RssReading | undefined;
  /** How many processes the start command is. */
  processes(): number;
  /** The gateway's output so far (stdout and stderr). */
  output(): string;
  /** With `gcProbe`: forces full collections in the gateway and reads its memory (rejects otherwise). */
  memoryAfterGc(): Promise<GcReading>;
  stop(): Promise<void>;
}

function builtInNames(root: string): string[] {
  const defaults = JSON.parse(readFileSync(join(root, 'config/default.json'), 'utf8')) as { plugins: Record<string, unknown> };
  return Object.keys(defaults.plugins);
}

function siteFile(options: BenchGatewayOptions, port: number): string {
  const plugins: Record<string, unknown> = {};
  for (const name of builtInNames(options.root ?? ROOT)) plugins[name] = { enable: false };
  for (const [name, choice] of Object.entries(options.plugins)) plugins[name] = { enable: true, ...choice };
  const site = {
    dataDir: options.dataDir,
    server: { host: '127.0.0.1', port, shutdownTimeoutMs: 5000 },
    log: { level: options.logLevel ?? 'warn' },
    // The devices plugin's settings in the site section that held them before kernel API 1.5: every
    // revision a comparison runs reads it (a later one with a deprecation warning).
    amt: { ports: { http: 16992, https: 16993, rmcp: BENCH_RMCP_PORT }, allowedNetworks: [BENCH_NETWORK] },
    plugins,
    ...options.site,
  };
  const extra = process.env.BENCH_SITE ? (JSON.parse(process.env.BENCH_SITE) as Record<string, unknown>) : {};
  const file = join(options.dataDir, `bench-site-${process.hrtime.bigint()}.json`);
  writeFileSync(file, JSON.stringify(mergeConfig(site, extra), null, 2));
  return file;
}

/**
 * What the bin's shebang gives (`#!/usr/bin/env -S NAME=value node <flags>`): its environment
 * settings and node flags, so that the bench runs what a site runs.
 */
export function binSettings(root: string): { env: Record<string, string>; flags: string[] } {
  const shebang = readFileSync(join(root, 'dist/core/main.js'), 'utf8').split('\n', 1)[0]!;
  const match = /^#!\S*env -S (.*?)\bnode\b(.*)$/.exec(shebang);
  if (!match) return { env: {}, flags: [] };
  const env = Object.fromEntries(match[1]!.trim().split(/\s+/).filter((t) => t.includes('=')).map((t) => [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)]));
  return { env, flags: match[2]!.trim().split(/\s+/).filter(Boolean) };
}

function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('AMTGW_')) env[key] = value;
  return { ...env, AMTGW_ADMIN_PASSWORD: ADMIN_PASSWORD, AMTGW_MASTER_KEY: MASTER_KEY };
}

/** BENCH_GATEWAY_ENV's `NAME=value` pairs. */
function extraEnv(): Record<string, string> {
  const pairs = (process.env.BENCH_GATEWAY_ENV ?? '').split(/\s+/).filter((t) => t.includes('='));
  return Object.fromEntries(pairs.map((t) => [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)]));
}

/** Starts the gateway and resolves once /api/health answers 200; rejects with its output if it exits first. */
export async function startGatewayProcess(options: BenchGatewayOptions): Promise<BenchGateway> {
  const port = await freePort();
  const config = siteFile(options, port);
  const logFile = join(options.dataDir, `gateway-${port}.log`);
  const profile = [
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : []),
    ...(process.env.BENCH_GATEWAY_FLAGS ?? '').split(/\s+/).filter(Boolean),
    ...(options.gcProbe ? ['--expose-gc', '--require', join(ROOT, 'test/bench/fixtures/gc-probe.cjs')] : []),
  ];
  const probeFile = join(options.dataDir, `gc-probe-${port}.json`);
  let probes = 0;
  const runner = options.runner ?? 'tsx';
  const root = options.root ?? ROOT;
  if (root !== ROOT && runner !== 'compiled') throw new Error('another build (root) runs compiled only');
  const [command, args] =
    runner === 'compiled'
      ? [process.execPath, [...binSettings(root).flags, ...profile, join(root, 'dist/core/main.js'), '--config', config]]
      : runner === 'npm-start'
        ? ['npm', ['start', '--silent', '--', '--config', config]]
        : runner === 'npm-dev'
          ? ['npm', ['run', '--silent', 'dev', '--', '--config', config]]
          : [process.execPath, ['--import', 'tsx', ...profile, join(ROOT, 'core/main.ts'), '--config', config]];
  const env = {
    ...(runner === 'compiled' ? { ...cleanEnv(), ...binSettings(root).env } : cleanEnv()),
    ...extraEnv(),
    ...(options.gcProbe ? { BENCH_GC_PROBE_FILE: probeFile } : {}),
  };
  const started = await spawnUntilServing(command, args, { cwd: root, env, logFile, url: `http://127.0.0.1:${port}`, what: 'the gateway' });
  const { child, exited, output, startMs, startCpuSeconds, url } = started;
  const gatewayPid = () => (runner.startsWith('npm-') ? gatewayProcess(child.pid!) : child.pid!);
  return {
    pid: child.pid!,
    url,
    startMs,
    startCpuSeconds,
    rss: () => readRss(gatewayPid()),
    treeRss: () => treeRss(child.pid!),
    processes: () => processTree(child.pid!).length,
    output,
    memoryAfterGc: () => (options.gcProbe ? probeMemory(gatewayPid(), probeFile, ++probes) : Promise.reject(new Error('the gateway was started without gcProbe'))),
    async stop() {
      if (started.exitCode() !== undefined) return;
      // To the gateway itself: through npm, sh and tsx a signal reaches it twice (a forced exit).
      process.kill(gatewayPid(), 'SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A process started by `spawnUntilServing`, serving. */
export interface ServingProcess {
  child: ChildProcess;
  url: string;
  /** Milliseconds from spawning to the first 200 from `url` + /api/health. */
  startMs: number;
  /** CPU seconds of the process tree until then. */
  startCpuSeconds: number;
  exited: Promise<void>;
  /** The exit code once it exited, else undefined. */
  exitCode(): number | null | undefined;
  /** Its output (stdout and stderr, written to `logFile`). */
  output(): string;
}

/**
 * Spawns a server and polls `url/api/health` every 5 ms until it answers 200: the gateway, or a
 * reference server measured the same way. Rejects with its output if it exits first or takes 300 s.
 */
export async function spawnUntilServing(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string; url: string; what: string }): Promise<ServingProcess> {
  const fd = openSync(options.logFile, 'a');
  const started = performance.now();
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const output = () => {
    try {
      return readFileSync(options.logFile, 'utf8');
    } catch {
      return '';
    }
  };
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', (code) => ((exitCode = code), resolve())));
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (exitCode !== undefined) throw new Error(`${options.what} exited (${exitCode}) before serving:\n${output().slice(-4000)}`);
    try {
      const res = await fetch(`${options.url}/api/health`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.what} did not serve within 300 s:\n${output().slice(-4000)}`);
    }
    await sleep(5);
  }
  const startMs = performance.now() - started;
  return { child, url: options.url, startMs, startCpuSeconds: treeCpuSeconds(child.pid!), exited, exitCode: () => exitCode, output };
}

/** Signals the gateway's gc-probe and waits (up to 10 s) for its reading number `seq`. */
async function probeMemory(pid: number, file: string, seq: number): Promise<GcReading> {
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 1000; i++) {
    await sleep(10);
    try {
      const reading = JSON.parse(readFileSync(file, 'utf8')) as GcReading & { seq: number };
      if (reading.seq === seq) return reading;
    } catch {
      // not written yet, or written halfway
    }
  }
  throw new Error('the gateway gave no memory reading within 10 s');
}
