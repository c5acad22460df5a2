/**
 * A/B of the CPU a device read costs, for builds side by side on a loaded machine (not part of
 * `npm run bench`): for each gateway build given (a directory holding dist/ and config/, e.g. a
 * `git archive` of another commit, built, with node_modules linked), start it compiled with the
 * bin's flags, scan N devices once (cold), then K more scans of N other devices each (warm), and
 * print the CPU ms per device of each scan, split by thread (`main`, the two worker threads, V8's
 * platform threads: garbage collection and optimising compiles; threads under 0.3 ms as `other`);
 * then the bare client reads the same warm devices. Rounds alternate the builds.
 *   unshare -n sh -c 'ip link set lo up && npx tsx test/bench/ab-reads.ts /tmp/old /work/wt'
 * Env: N (1000), K (2), ROUNDS (1); AB_SITE / AB_SITE_<i> (JSON merged into the site file of every
 * build / of the i-th), AB_BIN_FLAGS / AB_BIN_FLAGS_<i> (node flags instead of the bin's), AB_FLAGS
 * (added node flags), AB_PROF (a --cpu-prof directory), AB_PERF (perf record of the warm scans to
 * this file prefix), AB_MARK (print a line as each scan starts). A build given twice is told apart
 * by a suffix `#label`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fleetAddresses } from '../sim/address-range.js';
import { FLEET_BASE, FLEET_PASSWORD, startBenchFleet } from './fleet-process.js';
import { GatewayClient } from './gateway-client.js';
import { ADMIN_PASSWORD, BENCH_NETWORK, BENCH_RMCP_PORT, MASTER_KEY, binSettings } from './gateway-process.js';
import { freePort } from './free-port.js';
import { fullyRead, listDevices } from './device-list.js';
import { readAll } from './wsman-reference-client.js';
import { readRss, readThreadCpu } from './process-rss.js';

const N = Number(process.env.N ?? 1000);
const K = Number(process.env.K ?? 2);
const ROUNDS = Number(process.env.ROUNDS ?? 1);
const roots = process.argv.slice(2);
const rootDir = (root: string) => root.split('#')[0]!;

function groupDiff(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const groups: Record<string, number> = {};
  for (const [key, value] of after) {
    const d = value - (before.get(key) ?? 0);
    const group = key === 'main' || d >= 0.3 ? key : 'other';
    groups[group] = (groups[group] ?? 0) + d;
  }
  return groups;
}

async function startGateway(root: string, dataDir: string, siteExtra: string | undefined): Promise<{ pid: number; url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const bin = binSettings(rootDir(root));
  const env = bin.env;
  const given = process.env[`AB_BIN_FLAGS_${roots.indexOf(root)}`] ?? process.env.AB_BIN_FLAGS;
  const flags = given !== undefined ? given.split(' ').filter(Boolean) : bin.flags;
  const defaults = JSON.parse(readFileSync(join(rootDir(root), 'config/default.json'), 'utf8')) as { plugins: Record<string, unknown> };
  const plugins: Record<string, unknown> = Object.fromEntries(Object.keys(defaults.plugins).map((n) => [n, { enable: false }]));
  plugins['rest-api'] = { enable: true };
  const site = {
    dataDir,
    server: { host: '127.0.0.1', port, shutdownTimeoutMs: 5000 },
    log: { level: 'warn' },
    // The devices plugin's settings in the site section that held them before kernel API 1.5: every
    // revision a comparison runs reads it (a later one with a deprecation warning).
    amt: { ports: { http: 16992, https: 16993, rmcp: BENCH_RMCP_PORT }, allowedNetworks: [BENCH_NETWORK] },
    plugins,
    ...(siteExtra ? (JSON.parse(siteExtra) as object) : {}),
  };
  const file = join(dataDir, 'site.json');
  writeFileSync(file, JSON.stringify(site));
  const prof = process.env.AB_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.AB_PROF] : [];
  const extraFlags = process.env.AB_FLAGS ? process.env.AB_FLAGS.split(' ') : [];
  const child = spawn(process.execPath, [...flags, ...extraFlags, ...prof, join(rootDir(root), 'dist/core/main.js'), '--config', file], {
    cwd: rootDir(root),
    env: { ...process.env, ...env, AMTGW_ADMIN_PASSWORD: ADMIN_PASSWORD, AMTGW_MASTER_KEY: MASTER_KEY },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      const res = await fetch(`${url}/api/health`);
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not yet
    }
    await sleep(20);
  }
  return {
    pid: child.pid!,
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const fmt = (g: Record<string, number>, n: number) =>
  Object.entries(g)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${((v * 1000) / n).toFixed(2)}`)
    .join(', ');

const fleet = await startBenchFleet((K + 1) * N);
const all = fleetAddresses(FLEET_BASE, (K + 1) * N);
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const root of roots) {
      const dataDir = mkdtempSync(join(tmpdir(), 'ab-reads-'));
      const gw = await startGateway(root, dataDir, process.env[`AB_SITE_${roots.indexOf(root)}`] ?? process.env.AB_SITE);
      try {
        const client = new GatewayClient(gw.url);
        await client.login();
        await client.addCredential('admin', FLEET_PASSWORD);
        const results: string[] = [];
        let perf: import('node:child_process').ChildProcess | undefined;
        for (let s = 0; s <= K; s++) {
          if (s === 1 && process.env.AB_PERF) {
            perf = spawn('perf', ['record', '-F', '1999', '-g', '-p', String(gw.pid), '-o', `${process.env.AB_PERF}-${round}-${roots.indexOf(root)}.data`], { stdio: 'ignore' });
            await sleep(500);
          }
          const set = all.slice(s * N, (s + 1) * N);
          if (process.env.AB_MARK) console.log(`@@ scan ${s}`);
          const before = readThreadCpu(gw.pid);
          const t0 = performance.now();
          await client.scan(`${set[0]}-${set.at(-1)}`);
          const seconds = (performance.now() - t0) / 1000;
          const groups = groupDiff(before, readThreadCpu(gw.pid));
          const total = Object.values(groups).reduce((a, b) => a + b, 0);
          const wanted = new Set(set);
          const read = (await listDevices(client)).filter((d) => wanted.has(d.ipAddress) && fullyRead(d)).length;
          results.push(`${s === 0 ? 'cold' : `warm${s}`}: ${((total * 1000) / N).toFixed(2)} ms/dev (${fmt(groups, N)}), read ${read}, ${seconds.toFixed(2)} s`);
        }
        if (perf) {
          perf.kill('SIGINT');
          await new Promise((r) => perf!.once('exit', r));
        }
        const rss = readRss(gw.pid);
        console.log(`round ${round} ${root}: rss ${((rss?.rssKiB ?? 0) / 1024).toFixed(0)} MiB peak ${((rss?.peakKiB ?? 0) / 1024).toFixed(0)} MiB\n  ${results.join('\n  ')}`);
      } finally {
        await gw.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
    const warm = all.slice(N);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const ok = await readAll(warm, 16992, 'admin', FLEET_PASSWORD, 64);
    const cpu = process.cpuUsage(cpu0);
    console.log(`round ${round} bare: ${((cpu.user + cpu.system) / 1000 / warm.length).toFixed(2)} ms/dev, read ${ok}, ${((warm.length / (performance.now() - t0)) * 1000).toFixed(0)} dev/s`);
  }
} finally {
  await fleet.stop();
}
