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

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; undefined when it has exited. */
export function readCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the command name, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
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
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid) === pid ? 'main' : tid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}
