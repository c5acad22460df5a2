/**
 * The sweep's reference: Debian's nmap doing a TCP connect scan of the same range
 * (`nmap -n -Pn -sT -T5 -p16992,16993 <range>`), timed, with its peak memory sampled from /proc.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readCpuSeconds, watchRss, type RssReading } from './process-rss.js';

export interface NmapRun {
  seconds: number;
  /** Hosts with 16992 or 16993 open. */
  openHosts: number;
  /** The "scanned in N seconds" nmap reports itself. */
  reportedSeconds: number | null;
  rss: RssReading;
  /** CPU seconds (user + system), as last sampled before it exited (sampled every 20 ms). */
  cpuSeconds: number;
  version: string;
}

function nmapPath(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v nmap'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/**
 * nmap's path, installing Debian's package when it is missing and we run as root. Returns a reason
 * instead when nmap is not there and cannot be installed.
 */
export function ensureNmap(log: (line: string) => void): { path: string } | { missing: string } {
  const existing = nmapPath();
  if (existing) return { path: existing };
  if (process.getuid?.() !== 0) {
    return { missing: 'nmap is not installed and the benchmark is not running as root; install it with `sudo apt-get update && sudo apt-get install -y nmap` and run again' };
  }
  log('nmap is missing: apt-get update && apt-get install -y nmap ...');
  const update = spawnSync('apt-get', ['update'], { stdio: 'ignore' });
  const install = update.status === 0 ? spawnSync('apt-get', ['install', '-y', 'nmap'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }) : update;
  const path = nmapPath();
  return path ? { path } : { missing: `installing nmap failed (apt-get exit ${install.status}); install it with \`apt-get install -y nmap\`` };
}

export function nmapArgs(range: string, ports: number[]): string[] {
  return ['-n', '-Pn', '-sT', '-T5', `-p${ports.join(',')}`, range];
}

/**
 * nmap as an operator tunes it for a network where most addresses are silent: no retry of an
 * unanswered probe, at least 1,024 probes in flight, no probe waits more than 250 ms.
 */
export function tunedNmapArgs(range: string, ports: number[]): string[] {
  return ['-n', '-Pn', '-sT', '-T5', '--max-retries', '0', '--min-parallelism', '1024', '--max-rtt-timeout', '250ms', `-p${ports.join(',')}`, range];
}

/** Runs nmap over `range` with grepable output on stdout, counting the hosts with an open port. */
export async function runNmap(path: string, range: string, ports: number[], args: string[] = nmapArgs(range, ports)): Promise<NmapRun> {
  const version = /Nmap version (\S+)/.exec(execFileSync(path, ['--version'], { encoding: 'utf8' }))?.[1] ?? 'unknown';
  const started = performance.now();
  const child = spawn(path, ['-oG', '-', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const rss = watchRss(child.pid!);
  let cpuSeconds = 0;
  const cpuSampler = setInterval(() => (cpuSeconds = readCpuSeconds(child.pid!) ?? cpuSeconds), 20);
  let openHosts = 0;
  let reportedSeconds: number | null = null;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (line.startsWith('Host:') && line.includes('/open/')) openHosts++;
    const done = /scanned in ([\d.]+) seconds/.exec(line);
    if (done) reportedSeconds = Number(done[1]);
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(cpuSampler);
  const peak = rss.stop();
  if (code !== 0) throw new Error(`nmap exited ${code}: ${stderr.trim().slice(0, 1000)}`);
  return { seconds, openHosts, reportedSeconds, rss: peak, cpuSeconds, version };
}
