/**
 * Summarises V8 CPU profiles (from BENCH_CPU_PROF): wall time covered, idle share, and the functions
 * with the most self time.   tsx test/bench/profile-summary.ts <file.cpuprofile ...> [--top N]
 */
import { readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function summarise(file: string, top: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') idle += dt;
    const where = url ? `${relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  const wall = (profile.endTime - profile.startTime) / 1000;
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [`${basename(file)}: ${wall.toFixed(0)} ms wall, ${((idle / wall) * 100).toFixed(0)} % idle`, ...rows.map(([k, ms]) => `  ${ms.toFixed(0).padStart(7)} ms  ${k}`)].join('\n');
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
for (const file of args.filter((a, i) => a.endsWith('.cpuprofile') && i !== topAt + 1)) console.log(summarise(file, top) + '\n');
