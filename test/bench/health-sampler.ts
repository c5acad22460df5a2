/**
 * /api/health latency timed from a process of its own, so that work in the benchmark's process (a
 * simulated fleet's TLS, load loops) does not show up as the gateway's latency.
 *   tsx test/bench/health-sampler.ts <url> <durationMs>   prints {"p50":…,"p99":…}
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { healthLatency } from './cira-scale.js';

const SELF = fileURLToPath(import.meta.url);

export async function healthLatencyApart(url: string, durationMs: number): Promise<{ p50: number | null; p99: number | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, url, String(durationMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the health sampler exited with ${code}`);
  return JSON.parse(out) as { p50: number | null; p99: number | null };
}

if (process.argv[1] === SELF) {
  const [url, ms] = process.argv.slice(2);
  console.log(JSON.stringify(await healthLatency(url!, Number(ms))));
}
