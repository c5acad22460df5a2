/**
 * The floor of a device read in this design, for the interrogation benchmark: the bare client's
 * reads (wsman-reference-client.ts) in a Piscina pool of the gateway's thread count, each answer parsed
 * by the gateway's `parseEnvelope` (fast-xml-parser), in a process of its own started as the bin
 * starts the gateway (its node flags and allocator setting) or with Node's defaults. No probing, no
 * device gate, no store, no scan: what any gateway that reads in worker threads and parses with the
 * design's parser spends at least, against which the gateway's own overhead and the bare client's
 * regex reads in one isolate can both be told apart.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { binSettings } from './gateway-process.js';
import type { FloorReply, FloorRequest } from './read-floor-host.js';
import { askChild } from './child-ask.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * Bundled as dist/ bundles the gateway (fast-xml-parser inlined, piscina external), so that the
 * floor's threads load plain JavaScript as the gateway's do, not tsx's loader; inside the checkout's
 * node_modules so that piscina resolves.
 */
const BUNDLE_DIR = join(ROOT, 'node_modules/.cache/amtgw-read-floor');

/** What each pool task does: the bare client's read with parseEnvelope, or the gateway's interrogate task. */
export type FloorTask = 'parse' | 'interrogate';
const TASK_ENTRY: Record<FloorTask, string> = { parse: 'read-floor-task', interrogate: 'read-floor-gateway-task' };

async function bundle(kind: FloorTask): Promise<{ host: string; task: string }> {
  const entry = (name: string) => fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  await build({
    entryPoints: [entry('read-floor-host'), entry(TASK_ENTRY[kind])],
    outdir: BUNDLE_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['piscina'],
    // As scripts/build.mjs: the inlined CommonJS dependencies require Node's built-ins.
    banner: { js: "import { createRequire as __floorRequire } from 'node:module'; const require = __floorRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  return { host: join(BUNDLE_DIR, 'read-floor-host.mjs'), task: join(BUNDLE_DIR, `${TASK_ENTRY[kind]}.mjs`) };
}

export interface FloorPass {
  read: number;
  seconds: number;
  cpuSeconds: number;
}

export interface ReadFloor {
  /** What the floor runs under, for the notes. */
  settings: string;
  pass(addresses: string[], password: string): Promise<FloorPass>;
  stop(): Promise<void>;
}

/** `as: 'bin'` runs under the compiled bin's shebang settings (dist/ must be built), `'defaults'` under Node's. */
export async function startReadFloor(as: 'bin' | 'defaults', kind: FloorTask, threads: number, concurrency: number): Promise<ReadFloor> {
  const { env, flags } = as === 'bin' ? binSettings(ROOT) : { env: {}, flags: [] };
  const { host, task } = await bundle(kind);
  const child = fork(host, [JSON.stringify({ task, threads, concurrency })], { execArgv: flags, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await askChild<FloorReply, 'ready'>(child, null, 'ready', "the read floor's process");
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const settings = as === 'bin' ? [...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...flags].join(' ') || 'none' : "Node's defaults";
  return {
    settings,
    async pass(addresses, password) {
      const request: FloorRequest = { type: 'pass', addresses, password };
      const { read, seconds, cpuSeconds } = await askChild<FloorReply, 'pass'>(child, request, 'pass', "the read floor's process");
      return { read, seconds, cpuSeconds };
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.send({ type: 'stop' } satisfies FloorRequest);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
