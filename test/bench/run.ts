/**
 * `npm run bench`: runs every benchmark in turn (or those named: `npm run bench -- sweep api`) and
 * prints each figure beside its reference from the same run, with the ratio. Never part of npm test.
 * Exits 0 unless a benchmark broke; a benchmark that cannot run here says why and is skipped.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Benchmark } from './bench-context.js';
import { parseBenchOptions, USAGE } from './bench-options.js';
import type { BenchResult } from './bench-result.js';
import { describeMachine, loadAverage, machineInfo } from './machine.js';
import { markdownTable, textTable } from './result-table.js';
import { sweep } from './sweep.js';
import { interrogation } from './interrogation.js';
import { api } from './api.js';
import { soap } from './soap.js';
import { hub } from './hub.js';
import { startup } from './startup.js';
import { cira } from './cira.js';
import { ciraFlood } from './cira-flood.js';
import { consoleDevices } from './console-devices.js';
import { auditMetrics } from './audit-metrics.js';
import { redirection } from './redirection.js';
import { field } from './field.js';
import { activation } from './activation.js';
import { ider } from './ider.js';
import { cluster } from './cluster.js';
import { deviceOps } from './device-ops.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const BENCHMARKS: Benchmark[] = [sweep, interrogation, api, soap, hub, startup, cira, ciraFlood, consoleDevices, auditMetrics, redirection, field, activation, ider, cluster, deviceOps];

/**
 * Benchmark scripts other engineers keep beside these (hub-*.ts, monitor-sweep.ts), run when named:
 * those whose header says how to run them (helpers and child processes of theirs are left alone).
 */
function extraScripts(): string[] {
  return readdirSync(HERE)
    .filter((f) => /^(hub-.+|monitor-sweep)\.ts$/.test(f))
    .map((f) => basename(f, '.ts'))
    .filter((name) => {
      const head = readFileSync(join(HERE, `${name}.ts`), 'utf8').slice(0, 1500);
      return head.includes(`test/bench/${name}.ts`) || head.includes(`bench -- ${name}`);
    });
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function runOne(bench: Benchmark, options: ReturnType<typeof parseBenchOptions> & object): Promise<BenchResult> {
  const reason = bench.unavailable?.();
  if (reason) return { name: bench.name, title: bench.title, reference: '', figures: [], notes: [], skipped: reason };
  const workDir = mkdtempSync(join(tmpdir(), `amtgw-bench-${bench.name}-`));
  const before = loadAverage();
  const started = performance.now();
  try {
    const result = await bench.run({ options, workDir, log: (line) => log(`${bench.name}: ${line}`) });
    return { ...result, seconds: (performance.now() - started) / 1000, load: { before, after: loadAverage() } };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const options = parseBenchOptions(process.argv.slice(2));
  const extras = extraScripts();
  if (options === 'help') {
    console.log(`${USAGE}${extras.length ? `\nAlso here, run when named: ${extras.join(' ')}` : ''}`);
    return 0;
  }
  const known = new Set([...BENCHMARKS.map((b) => b.name), ...extras]);
  const unknown = options.names.filter((n) => !known.has(n));
  if (unknown.length) {
    console.error(`unknown benchmark ${unknown.join(', ')}; known: ${[...known].join(', ')}`);
    return 2;
  }
  const selected = options.names.length ? BENCHMARKS.filter((b) => options.names.includes(b.name)) : BENCHMARKS;
  const machine = describeMachine(machineInfo());
  console.log(`amt-gateway benchmarks on ${machine}\nload average ${loadAverage()}; command: npm run bench -- ${process.argv.slice(2).join(' ')}\n`);
  const results: BenchResult[] = [];
  let failed = 0;
  for (const bench of selected) {
    try {
      const result = await runOne(bench, options);
      results.push(result);
      console.log(textTable(result));
    } catch (err) {
      failed++;
      console.error(`== ${bench.title}\n   FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    }
  }
  for (const name of options.names.filter((n) => extras.includes(n))) {
    log(`running ${name}.ts`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(HERE, `${name}.ts`)], { stdio: 'inherit' });
    if (run.status !== 0) failed++;
  }
  if (options.markdown) {
    const md = [`Machine: ${machine}.`, '', `Command: \`npm run bench -- ${process.argv.slice(2).join(' ')}\``, '', ...results.map(markdownTable)].join('\n');
    writeFileSync(options.markdown, md);
    log(`markdown written to ${options.markdown}`);
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
