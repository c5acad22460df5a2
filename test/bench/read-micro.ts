/**
 * The `interrogate` task run in this thread (no pool, no probing, no store) beside the bare client,
 * as many devices at the same concurrency, in alternating passes of devices not read before: the
 * task's own cost per read apart from the gateway's (not part of `npm run bench`). Several task
 * modules (e.g. dist/workers/tasks/interrogate.js of two builds) are measured in turn.
 *   unshare -n sh -c 'ip link set lo up && npx tsx test/bench/read-micro.ts [taskModule ...]'
 * Env: N (500 per pass), PASSES (6), C (64), ONLY (one party's name, for a CPU profile of it alone).
 */
import { pathToFileURL } from 'node:url';
import { fleetAddresses } from '../sim/address-range.js';
import { FLEET_BASE, FLEET_PASSWORD, startBenchFleet } from './fleet-process.js';
import { readAll } from './wsman-reference-client.js';
import { gatewayReads, taskModulePaths, type Interrogate } from './task-reads.js';

const N = Number(process.env.N ?? 500);
const PASSES = Number(process.env.PASSES ?? 6);
const C = Number(process.env.C ?? 64);
const modulePaths = taskModulePaths(process.argv);
const tasks: Array<[string, Interrogate]> = [];
for (const path of modulePaths) tasks.push([path.replace(/\/dist\/.*$/, ''), (await import(pathToFileURL(path).href)).default as Interrogate]);

const parties = tasks.length + 1;
const fleet = await startBenchFleet(parties * PASSES * N);
const all = fleetAddresses(FLEET_BASE, parties * PASSES * N);
const rows: string[] = [];
try {
  for (let pass = 0; pass < PASSES; pass++) {
    const runs: Array<[string, (a: string[]) => Promise<number>]> = [
      ...tasks.map(([name, task]): [string, (a: string[]) => Promise<number>] => [name, (a) => gatewayReads(task, a, C)]),
      ['bare', (a) => readAll(a, 16992, 'admin', FLEET_PASSWORD, C)],
    ];
    for (const [index, [name, run]] of runs.entries()) {
      if (process.env.ONLY && process.env.ONLY !== name) continue;
      const offset = (parties * pass + index) * N;
      const set = all.slice(offset, offset + N);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const ok = await run(set);
      const cpu = process.cpuUsage(cpu0);
      rows.push(`pass ${pass} ${name.padEnd(16)}: ${((cpu.user + cpu.system) / 1000 / N).toFixed(3)} ms/read (user ${(cpu.user / 1000 / N).toFixed(3)}), ok ${ok}, ${(N / ((performance.now() - t0) / 1000)).toFixed(0)} reads/s`);
      console.log(rows.at(-1));
    }
  }
} finally {
  await fleet.stop();
}
