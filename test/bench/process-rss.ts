/** Resident memory of a process from /proc/<pid>/status: now (VmRSS) and its peak so far (VmHWM). */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

export interface RssReading {
  rssKiB: number;
  peakKiB: number;
}

/** The process's memory now, or undefined when it has exited. Worker threads share the process, so they count. */
export function readRss(pid: number): RssReading | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssKiB: field('VmRSS'), peakKiB: field('VmHWM') };
}

/** Resets the peak (VmHWM) to the current RSS, so that a later reading gives the peak of one phase. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Samples a process every `intervalMs` and keeps the highest peak seen, so that the peak of a process
 * that exits (nmap) is still known afterwards.
 */
export function watchRss(pid: number, intervalMs = 50): { stop(): RssReading } {
  const best: RssReading = { rssKiB: 0, peakKiB: 0 };
  const sample = () => {
    const r = readRss(pid);
    if (!r) return;
    best.rssKiB = Math.max(best.rssKiB, r.rssKiB);
    best.peakKiB = Math.max(best.peakKiB, r.peakKiB, r.rssKiB);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      sample();
      clearInterval(timer);
      return { ...best };
    },
  };
}

export const mib = (kib: number) => kib / 1024;

/**
 * The fields of /proc/<pid>/stat (or /proc/<pid>/task/<tid>/stat) after the command name, or
 * undefined when it has gone. Of these, [7] is minor faults, [11] and [12] user and system time in
 * clock ticks (100 per second on Linux): fields 10, 14 and 15 of stat(5).
 */
export function procStat(path: string): string[] | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

const cpuOf = (fields: string[]) => (Number(fields[11]) + Number(fields[12])) / 100;

/** CPU seconds (user + system) a process has used so far; undefined when it has exited. */
export function readCpuSeconds(pid: number): number | undefined {
  const fields = procStat(`/proc/${pid}/stat`);
  return fields ? cpuOf(fields) : undefined;
}

/** CPU seconds and minor page faults of a process so far; undefined when it has exited. */
export function readCpuAndFaults(pid: number): { cpu: number; faults: number } | undefined {
  const fields = procStat(`/proc/${pid}/stat`);
  return fields ? { cpu: cpuOf(fields), faults: Number(fields[7]) } : undefined;
}

/**
 * CPU seconds (user + system) per thread of a process, keyed `main` for the process's own thread and
 * `<tid>` for the others (Node 20 names every thread "node": worker threads, V8's platform threads and
 * libuv's pool are told apart only by what they use). Empty when the process has exited.
 */
export function readThreadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    // A thread that ended between the listing and the read is left out.
    const fields = procStat(`/proc/${pid}/task/${tid}/stat`);
    if (fields) out.set(Number(tid) === pid ? 'main' : tid, cpuOf(fields));
  }
  return out;
}
