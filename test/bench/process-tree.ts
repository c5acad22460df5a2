/** A process and its descendants from /proc (npm → sh → tsx → node is four processes), and their memory. */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { readCpuSeconds, readRss, type RssReading } from './process-rss.js';

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** `pid` and its descendants, parents before children (a chain ends with its deepest process). */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    const child = Number(entry);
    if (!Number.isInteger(child)) continue;
    const parent = parentOf(child);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const out: number[] = [];
  const visit = (p: number) => {
    out.push(p);
    for (const c of children.get(p) ?? []) visit(c);
  };
  if (parentOf(pid) !== undefined) visit(pid);
  return out;
}

/** In a start command's tree, the node process running core/main (not npm, sh or tsx's CLI). */
export function gatewayProcess(pid: number): number {
  const isGateway = (p: number) => {
    try {
      const cmdline = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      return /\/node[^/]*$/.test(readlinkSync(`/proc/${p}/exe`)) && cmdline.includes('core/main') && !cmdline.includes('.bin/tsx') && !cmdline.includes('cli.mjs');
    } catch {
      return false;
    }
  };
  return processTree(pid).filter(isGateway).at(-1) ?? pid;
}

/** The summed RSS and summed peaks of a process tree, or undefined when it has exited. */
export function treeRss(pid: number): RssReading | undefined {
  const readings = processTree(pid).map(readRss).filter((r): r is RssReading => r !== undefined);
  if (readings.length === 0) return undefined;
  return { rssKiB: readings.reduce((s, r) => s + r.rssKiB, 0), peakKiB: readings.reduce((s, r) => s + r.peakKiB, 0) };
}

/** CPU seconds (user + system, every thread) used so far by a process tree. */
export function treeCpuSeconds(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + (readCpuSeconds(p) ?? 0), 0);
}
