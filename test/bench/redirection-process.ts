/**
 * BENCH_REDIRECTION_MALLOC=keep: the redirection benchmark's own process (its simulated devices and
 * the viewers of every way, direct, relayed and through the floors alike) runs as a child whose glibc
 * allocator keeps what it frees (TUNED_MALLOC); the settings are removed from the child's
 * environment once it runs, so the gateways keep their bin's settings and the floors Node's defaults.
 * What it buys: glibc's default thresholds move with what the process freed before, so the process
 * sometimes gives the read buffers V8 frees back to the kernel after each GC and faults them in again
 * (78-94 minor faults and ~3.3 ms of CPU per MB direct, rounds spread by x20; with these settings 4
 * faults and 1.7-2.0 ms, x2.5) and sometimes not (2.5 faults per MB in a whole benchmark run). Not
 * the default: in the benchmark's own runs the rounds spread as much with it as without it, the
 * machine's load decided (BENCHMARKS.md, "The cheapest WebSocket relay").
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchContext } from './bench-context.js';
import type { BenchResult } from './bench-result.js';

const TUNED_MALLOC = { MALLOC_TRIM_THRESHOLD_: '268435456', MALLOC_TOP_PAD_: '67108864' };
const CHILD_MARK = 'BENCH_REDIRECTION_CHILD';
const HERE = fileURLToPath(import.meta.url);

type ChildMessage = { log: string } | { result: BenchResult } | { error: string };

/** With BENCH_REDIRECTION_MALLOC=keep, runs `runHere` in a child process with TUNED_MALLOC; else here. */
export function inTunedProcess(ctx: BenchContext, runHere: (ctx: BenchContext) => Promise<BenchResult>): Promise<BenchResult> {
  if (process.env[CHILD_MARK] || process.env.BENCH_REDIRECTION_MALLOC !== 'keep') return runHere(ctx);
  ctx.log(`in a process of its own with ${Object.entries(TUNED_MALLOC).map(([k, v]) => `${k}=${v}`).join(' ')} (its devices and viewers; not the gateways)`);
  const child = fork(HERE, [JSON.stringify({ options: ctx.options, workDir: ctx.workDir })], { execArgv: ['--import', 'tsx'], env: { ...process.env, ...TUNED_MALLOC, [CHILD_MARK]: '1' } });
  return new Promise((resolve, reject) => {
    let result: BenchResult | undefined;
    child.on('message', (message: ChildMessage) => {
      if ('log' in message) ctx.log(message.log);
      else if ('result' in message) result = message.result;
      else reject(new Error(message.error));
    });
    child.once('exit', (code) => (result ? resolve(result) : reject(new Error(`the redirection benchmark's process exited (${code}) without a result`))));
  });
}

async function childMain(): Promise<void> {
  // glibc read these when the process started; children (the gateways, the floors) must not inherit them.
  for (const name of Object.keys(TUNED_MALLOC)) delete process.env[name];
  const send = (message: ChildMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));
  const { options, workDir } = JSON.parse(process.argv[2]!) as Pick<BenchContext, 'options' | 'workDir'>;
  try {
    const { redirection } = await import('./redirection.js');
    await send({ result: await redirection.run({ options, workDir, log: (line) => void send({ log: line }) }) });
  } catch (error) {
    await send({ error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
  process.exit(0);
}

if (process.argv[1] === HERE && process.send) void childMain();
