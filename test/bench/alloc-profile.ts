/**
 * What a device read allocates (not part of `npm run bench`): the `interrogate` task run in this
 * thread at the gateway's concurrency, as read-micro.ts does, under V8's sampling heap profiler with
 * collected objects kept in the profile (young garbage included), after a warm-up pass. Prints the
 * bytes allocated per read and the allocation sites ranked by bytes (self, by function and line),
 * then the same for the bare client. Several task modules are profiled in turn.
 *   unshare -n sh -c 'ip link set lo up && npx tsx test/bench/alloc-profile.ts [taskModule ...]'
 * Env: N (500 per profiled pass; the fleet holds 2 × N devices per party, and about 4,000 fit the
 * open-file limit), C (64), TOP (30 sites), INTERVAL (sampling bytes, 512).
 */
import { Session } from 'node:inspector/promises';
import { pathToFileURL } from 'node:url';
import { fleetAddresses } from '../sim/address-range.js';
import { FLEET_BASE, FLEET_PASSWORD, startBenchFleet } from './fleet-process.js';
import { readAll } from './wsman-reference-client.js';
import { gatewayReads, taskModulePaths, type Interrogate } from './task-reads.js';

const N = Number(process.env.N ?? 500);
const C = Number(process.env.C ?? 64);
const TOP = Number(process.env.TOP ?? 30);
const INTERVAL = Number(process.env.INTERVAL ?? 512);
const modulePaths = taskModulePaths(process.argv);

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

/** Bytes by site (function, file:line, caller) and by module (a builtin's bytes go to its caller's module). */
function sites(root: ProfileNode): { bySite: Map<string, number>; byModule: Map<string, number> } {
  const bySite = new Map<string, number>();
  const byModule = new Map<string, number>();
  const moduleOf = (file: string): string => (file.startsWith('node:') ? 'node' : file.split('/')[0]!);
  const walk = (node: ProfileNode, caller: string, callerModule: string) => {
    const f = node.callFrame;
    const file = f.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(workers|test|dist)\//, '$1/');
    const module = file === '' ? callerModule : moduleOf(file);
    const name = `${f.functionName || '(anon)'} ${file}:${f.lineNumber + 1} <- ${caller}`;
    if (node.selfSize > 0) {
      bySite.set(name, (bySite.get(name) ?? 0) + node.selfSize);
      byModule.set(module, (byModule.get(module) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, f.functionName || '(anon)', module);
  };
  walk(root, '', '(root)');
  return { bySite, byModule };
}

async function profiled(session: Session, label: string, run: () => Promise<number>): Promise<void> {
  await session.post('HeapProfiler.startSampling', { samplingInterval: INTERVAL, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  const ok = await run();
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: ProfileNode } };
  const { bySite, byModule } = sites(profile.head);
  const total = [...bySite.values()].reduce((a, b) => a + b, 0);
  console.log(`\n${label}: ${(total / N / 1024).toFixed(1)} KiB allocated per read (ok ${ok})`);
  console.log(`  by module: ${[...byModule].sort((a, b) => b[1] - a[1]).map(([m, b]) => `${m} ${(b / N / 1024).toFixed(1)}`).join(', ')}`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    console.log(`  ${(bytes / N / 1024).toFixed(2).padStart(7)} KiB ${((bytes / total) * 100).toFixed(1).padStart(5)} %  ${site}`);
  }
}

const parties = modulePaths.length + 1;
const fleet = await startBenchFleet(parties * 2 * N);
const all = fleetAddresses(FLEET_BASE, parties * 2 * N);
const session = new Session();
session.connect();
try {
  let offset = 0;
  const next = () => all.slice(offset, (offset += N));
  for (const path of modulePaths) {
    const task = (await import(pathToFileURL(path).href)).default as Interrogate;
    await gatewayReads(task, next(), C);
    await profiled(session, path, () => gatewayReads(task, next(), C));
  }
  await readAll(next(), 16992, 'admin', FLEET_PASSWORD, C);
  await profiled(session, 'bare client', () => readAll(next(), 16992, 'admin', FLEET_PASSWORD, C));
} finally {
  session.disconnect();
  await fleet.stop();
}
