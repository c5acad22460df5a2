/** What the benchmarks ran on, printed beside every figure (BENCHMARKS.md quotes it). */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { readFileSync } from 'node:fs';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memory: string;
  node: string;
  kernel: string;
}

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpus()[0]?.model ?? 'unknown';
  } catch {
    return cpus()[0]?.model ?? 'unknown';
  }
}

function run(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export function machineInfo(): MachineInfo {
  const free = run('free', ['-h']).split('\n').find((l) => l.startsWith('Mem:'))?.split(/\s+/)[1] ?? 'unknown';
  return { cpus: Number(run('nproc', [])) || cpus().length, cpuModel: cpuModel(), memory: free, node: process.version, kernel: run('uname', ['-r']) };
}

/** The 1, 5 and 15 minute load averages, e.g. "1.20 0.85 0.40". */
export function loadAverage(): string {
  return loadavg().map((n) => n.toFixed(2)).join(' ');
}

export function describeMachine(m: MachineInfo): string {
  return `${m.cpus} CPU (${m.cpuModel}), ${m.memory} RAM, Node ${m.node}, Linux ${m.kernel}`;
}
