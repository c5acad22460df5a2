/**
 * A/B of the field benchmark's /19 scan for builds side by side (not part of `npm run bench`): the
 * /19 of field-namespace.ts (1,000 devices answering after 50-400 ms, 4,096 silent addresses dropped
 * by nftables), scanned by a freshly started compiled gateway of each build given (a directory
 * holding dist/ and config/, e.g. a `git archive` of another commit, built, with node_modules linked),
 * rounds alternating the builds; no nmap, no bare client. Per scan: its time (startedAt to
 * finishedAt), the gateway's CPU per thread, the simulated fleet's CPU, devices read. The fleet is
 * warmed up first, as in the field benchmark (the bare client reads every device once).
 *   unshare -n sh -c 'ip link set lo up && npx tsx test/bench/ab-field.ts /tmp/old /work/wt'
 * Env: ROUNDS (1); WARM (0: further scans of the same range by the same gateway, devices known);
 * PAUSE_MS (0: wait between the gateway's start and its first scan); gateway-process.ts's
 * BENCH_CPU_PROF, BENCH_GATEWAY_FLAGS, BENCH_SITE apply. A build given twice is told apart by a
 * suffix `#label`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fullyRead } from './device-list.js';
import { bareReadAll, dropSilentBlocks, SIZES, threadDiff } from './field-namespace.js';
import { FLEET_PASSWORD, startBenchFleet, type BenchFleet } from './fleet-process.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess } from './gateway-process.js';
import type { Device } from '../../plugins/rest-api/api.js';
import { readCpuSeconds, readThreadCpu } from './process-rss.js';

const ROUNDS = Number(process.env.ROUNDS ?? 1);
const WARM = Number(process.env.WARM ?? 0);
const PAUSE_MS = Number(process.env.PAUSE_MS ?? 0);
const roots = process.argv.slice(2);
const size = SIZES[19]!;

async function scanOnce(client: GatewayClient, pid: number, fleet: BenchFleet): Promise<string> {
  await fleet.resetCounters();
  const threadsBefore = readThreadCpu(pid);
  const fleetBefore = readCpuSeconds(fleet.pid) ?? 0;
  const started = await client.startScan(size.range);
  const scan = await client.waitScan(started.id, 900_000, 50);
  const threads = threadDiff(threadsBefore, readThreadCpu(pid));
  const fleetCpu = (readCpuSeconds(fleet.pid) ?? 0) - fleetBefore;
  const counters = await fleet.counters();
  const seconds = (Date.parse(scan.finishedAt!) - Date.parse(scan.startedAt)) / 1000;
  const devices = await client.json<Device[]>('GET', '/api/devices');
  const cpu = threads.reduce((sum, [, s]) => sum + s, 0);
  return `${seconds.toFixed(2)} s, gateway ${cpu.toFixed(2)} CPU s (${threads.map(([k, s]) => `${k} ${s.toFixed(2)}`).join(', ')}), fleet ${fleetCpu.toFixed(2)} CPU s (${counters.connections} connections, ${counters.requests} requests), read ${devices.filter(fullyRead).length}`;
}

dropSilentBlocks([size]);
const fleet = await startBenchFleet(size.devices, { base: size.base, responseDelayMs: true, altPasswordEvery: size.altPasswordEvery, seed: `field-${size.prefix}` });
try {
  // As the field benchmark does: the simulator warmed up by one unmeasured read of every device.
  await bareReadAll(fleet, size);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, root] of roots.entries()) {
      const dataDir = mkdtempSync(join(tmpdir(), 'ab-field-'));
      const load = (await import('node:os')).loadavg()[0]!.toFixed(2);
      const gw = await startGatewayProcess({ dataDir, runner: 'compiled', root: root.split('#')[0]!, plugins: { 'rest-api': {} } });
      try {
        const client = new GatewayClient(gw.url);
        await client.login();
        await client.addCredential('admin', FLEET_PASSWORD);
        if (PAUSE_MS) await sleep(PAUSE_MS);
        const idle = gw.rss();
        const lines: string[] = [];
        for (let s = 0; s <= WARM; s++) {
          if (s > 0 && PAUSE_MS) await sleep(PAUSE_MS);
          lines.push(`${s === 0 ? 'first' : `again${s}`}: ${await scanOnce(client, gw.pid, fleet)}`);
        }
        const rss = gw.rss();
        console.log(`round ${round} [${i}] ${root} (load ${load}, start ${gw.startMs.toFixed(0)} ms / ${gw.startCpuSeconds.toFixed(2)} CPU s, rss before the scan ${((idle?.rssKiB ?? 0) / 1024).toFixed(0)} MiB, after ${((rss?.rssKiB ?? 0) / 1024).toFixed(0)} MiB)\n  ${lines.join('\n  ')}`);
      } finally {
        await gw.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
} finally {
  await fleet.stop();
}
