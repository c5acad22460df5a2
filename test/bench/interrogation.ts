/**
 * 2. Interrogation: how many devices per second the gateway fully reads (Digest sign-in, firmware
 * version, provisioning state, hostname; it also reads the UUID) and how many HTTP round trips each
 * costs, beside a bare client doing the same reads against the same fleet at the same concurrency.
 * Measured twice: on the gateway's first scan after start (cold: every worker thread compiles its
 * code paths as it goes), and on a second scan of as many other devices (warm, as a running gateway).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fleetAddresses } from '../sim/address-range.js';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { fullyRead, listDevices } from './device-list.js';
import { FLEET_BASE, FLEET_PASSWORD, startBenchFleet, type BenchFleet } from './fleet-process.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess, type GatewayRunner } from './gateway-process.js';
import { readAll } from './wsman-reference-client.js';
import { readCpuSeconds } from './process-rss.js';
import { startReadFloor, type FloorPass, type FloorTask } from './read-floor.js';

/**
 * The reference reads this many devices at a time (the gateway's default `scan.interrogationConcurrency`
 * before issue 21; on devices that answer at once more does not speed up a client bound by its CPU).
 * The gateway reads with its own defaults.
 */
const CONCURRENCY = 64;
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * The gateway runs compiled, as a site runs it (and as the field benchmark runs it); under tsx its
 * worker threads also pay the loader and source maps. BENCH_INTERROGATION_RUNNER=tsx measures it as
 * the figures before issue 21's admission change were measured.
 */
const RUNNER: GatewayRunner = process.env.BENCH_INTERROGATION_RUNNER === 'tsx' ? 'tsx' : 'compiled';

interface Pass {
  read: number;
  seconds: number;
  cpuSeconds: number;
  counters: { requests: number; connections: number; unauthorized: number };
}

interface GatewayPass extends Pass {
  total: number;
  recordSpan: number;
}

async function gatewayPass(client: GatewayClient, fleet: BenchFleet, pid: number, addresses: string[]): Promise<GatewayPass> {
  await fleet.resetCounters();
  const cpuBefore = readCpuSeconds(pid) ?? 0;
  const result = await client.scan(`${addresses[0]}-${addresses.at(-1)}`);
  const cpuSeconds = (readCpuSeconds(pid) ?? 0) - cpuBefore;
  const counters = await fleet.counters();
  const wanted = new Set(addresses);
  const devices = (await listDevices(client)).filter((d) => wanted.has(d.ipAddress));
  const seen = devices.map((d) => Date.parse(d.lastSeen)).sort((a, b) => a - b);
  return { read: devices.filter(fullyRead).length, seconds: result.seconds, cpuSeconds, counters, total: result.scan.total, recordSpan: (seen.at(-1)! - seen[0]!) / 1000 };
}

async function referencePass(fleet: BenchFleet, addresses: string[]): Promise<Pass> {
  await fleet.resetCounters();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const read = await readAll(addresses, 16992, 'admin', FLEET_PASSWORD, CONCURRENCY);
  const cpu = process.cpuUsage(cpuBefore);
  return { read, seconds: (performance.now() - started) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, counters: await fleet.counters() };
}

/** The gateway's default worker threads, which the design floor's pool matches. */
const THREADS = (JSON.parse(readFileSync(`${ROOT}config/default.json`, 'utf8')) as { workers: { threads: number } }).workers.threads;

async function floorPasses(as: 'bin' | 'defaults', kind: FloorTask, cold: string[], warm: string[]): Promise<{ settings: string; cold: FloorPass; warm: FloorPass }> {
  const floor = await startReadFloor(as, kind, THREADS, CONCURRENCY);
  try {
    return { settings: floor.settings, cold: await floor.pass(cold, FLEET_PASSWORD), warm: await floor.pass(warm, FLEET_PASSWORD) };
  } finally {
    await floor.stop();
  }
}

export const interrogation: Benchmark = {
  name: 'interrogation',
  title: 'Interrogation',
  async run({ options, workDir, log }) {
    const n = options.devices;
    const fleet = await startBenchFleet(2 * n);
    const all = fleetAddresses(FLEET_BASE, 2 * n);
    const cold = all.slice(0, n);
    const warm = all.slice(n);
    try {
      if (RUNNER === 'compiled') {
        log('building dist/ if stale (the gateway runs compiled, as a site runs it)');
        const build = spawnSync(process.execPath, [`${ROOT}scripts/build.mjs`, '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
        if (build.status !== 0) throw new Error('npm run build failed; the compiled gateway cannot be measured');
      }
      log(`gateway (${RUNNER}): first scan after start, ${cold[0]}-${cold.at(-1)}; then ${warm[0]}-${warm.at(-1)}`);
      const gateway = await startGatewayProcess({ dataDir: workDir, runner: RUNNER, plugins: { 'rest-api': {} } });
      let gw: { cold: GatewayPass; warm: GatewayPass };
      try {
        const client = new GatewayClient(gateway.url);
        await client.login();
        await client.addCredential('admin', FLEET_PASSWORD);
        gw = { cold: await gatewayPass(client, fleet, gateway.pid, cold), warm: await gatewayPass(client, fleet, gateway.pid, warm) };
      } finally {
        await gateway.stop();
      }
      log(`reference: a bare Digest WS-Management client reading the same devices, ${CONCURRENCY} at a time`);
      const ref = { cold: await referencePass(fleet, cold), warm: await referencePass(fleet, warm) };
      log(`design floor: the same reads in a Piscina pool of ${THREADS} threads, parsed by parseEnvelope, under the bin's settings and then under Node's defaults`);
      const floorBin = await floorPasses('bin', 'parse', cold, warm);
      const floorDefaults = await floorPasses('defaults', 'parse', cold, warm);
      log('the gateway\'s interrogate task alone in the same pool, under the bin\'s settings');
      const taskBin = await floorPasses('bin', 'interrogate', cold, warm);

      const rate = (p: FloorPass) => p.read / p.seconds;
      const cpuMs = (p: FloorPass) => (p.cpuSeconds * 1000) / n;
      const x = (a: number, b: number) => `x${(a / b).toFixed(2)}`;
      const floorNote = (pick: (p: FloorPass) => number, pass: 'cold' | 'warm') =>
        `reference: the design floor (bin settings); it is ${x(pick(floorBin[pass]), pick(ref[pass]))} of the bare client, under Node's defaults ${x(pick(floorDefaults[pass]), pick(ref[pass]))}`;
      const figures: Figure[] = [
        { label: 'devices fully read', unit: '', gateway: gw.cold.read, reference: ref.cold.read },
        { label: 'devices fully read per second, first scan after start', unit: 'dev/s', gateway: rate(gw.cold), reference: rate(ref.cold), better: 'higher', note: `gateway: the whole scan (${gw.cold.total} addresses probed first), ${gw.cold.seconds.toFixed(2)} s` },
        { label: 'devices recorded per second once reading, first scan', unit: 'dev/s', gateway: gw.cold.recordSpan > 0 ? (gw.cold.read - 1) / gw.cold.recordSpan : null, reference: rate(ref.cold), better: 'higher', note: 'gateway: first to last device record' },
        { label: 'devices fully read per second, warm (other devices)', unit: 'dev/s', gateway: rate(gw.warm), reference: rate(ref.warm), better: 'higher', note: `${gw.warm.read.toLocaleString('en-US')} read by the gateway, ${gw.warm.seconds.toFixed(2)} s` },
        { label: 'CPU milliseconds per device, first scan', unit: 'ms', gateway: cpuMs(gw.cold), reference: cpuMs(ref.cold), better: 'lower', note: 'gateway: whole process during the scan, probing and storing included' },
        { label: 'CPU milliseconds per device, warm', unit: 'ms', gateway: cpuMs(gw.warm), reference: cpuMs(ref.warm), better: 'lower' },
        { label: 'CPU milliseconds per device, first scan, against the design floor', unit: 'ms', gateway: cpuMs(gw.cold), reference: cpuMs(floorBin.cold), better: 'lower', note: floorNote(cpuMs, 'cold') },
        { label: 'CPU milliseconds per device, warm, against the design floor', unit: 'ms', gateway: cpuMs(gw.warm), reference: cpuMs(floorBin.warm), better: 'lower', note: floorNote(cpuMs, 'warm') },
        { label: 'devices fully read per second, warm, against the design floor', unit: 'dev/s', gateway: rate(gw.warm), reference: rate(floorBin.warm), better: 'higher', note: floorNote(rate, 'warm') },
        { label: 'HTTP round trips per device', unit: '', gateway: gw.cold.counters.requests / n, reference: ref.cold.counters.requests / n, better: 'lower' },
        { label: 'TCP connections per device', unit: '', gateway: gw.cold.counters.connections / n, reference: ref.cold.counters.connections / n, better: 'lower', note: "the device's 401 closes the connection, as AMT does" },
        { label: 'HTTP 401 challenges per device', unit: '', gateway: gw.cold.counters.unauthorized / n, reference: ref.cold.counters.unauthorized / n, better: 'lower' },
      ];
      const notes = [
        `Both read the same ${n} simulated devices (fleet in its own process), the reference ${CONCURRENCY} devices at a time, the gateway with its defaults (${RUNNER === 'compiled' ? 'compiled, as a site runs it' : 'under tsx'}; the device gate admits reads by what they cost, up to deviceConnections 1024, one connection per device), with a Digest sign-in: firmware version (CIM_SoftwareIdentity), provisioning state (AMT_SetupAndConfigurationService), hostname (AMT_GeneralSettings) and UUID (CIM_ComputerSystemPackage). The reference does exactly one Get per item; the gateway does what workers/tasks/interrogate.ts does.`,
        `"First scan" is the gateway's first scan after it started; "warm" is its next scan, of ${n} other devices of the same fleet (${warm[0]} – ${warm.at(-1)}), which it has never read either: what a running gateway does. The reference reads the same two sets in the same order.`,
        `The design floor: the bare client's reads in a Piscina pool of ${THREADS} threads (the gateway's default), ${CONCURRENCY} at a time, each answer parsed by the gateway's parseEnvelope (fast-xml-parser) and its value looked up in the Body, in a process of its own, started with the bin's settings (${floorBin.settings}) and again with Node's defaults: what reading in worker threads and parsing with the design's parser costs before any probing, gate, store or scan. Its first pass is in fresh threads, like the gateway's first scan. Bin settings: CPU ${cpuMs(floorBin.cold).toFixed(3)} / ${cpuMs(floorBin.warm).toFixed(3)} ms per device (first / second pass), ${rate(floorBin.cold).toFixed(0)} / ${rate(floorBin.warm).toFixed(0)} dev/s; Node's defaults ${cpuMs(floorDefaults.cold).toFixed(3)} / ${cpuMs(floorDefaults.warm).toFixed(3)} ms, ${rate(floorDefaults.cold).toFixed(0)} / ${rate(floorDefaults.warm).toFixed(0)} dev/s; devices read ${floorBin.cold.read} / ${floorBin.warm.read} and ${floorDefaults.cold.read} / ${floorDefaults.warm.read}.`,
        `Between the floor and the gateway: the gateway's interrogate task (workers/tasks/interrogate.ts: undici transport with its bounds, Digest, parseEnvelope, the reads' checks) in the same pool under the bin's settings, without probing, gate, store or scan: CPU ${cpuMs(taskBin.cold).toFixed(3)} / ${cpuMs(taskBin.warm).toFixed(3)} ms per device (${x(cpuMs(taskBin.cold), cpuMs(floorBin.cold))} / ${x(cpuMs(taskBin.warm), cpuMs(floorBin.warm))} of the floor), ${rate(taskBin.cold).toFixed(0)} / ${rate(taskBin.warm).toFixed(0)} dev/s, read ${taskBin.cold.read} / ${taskBin.warm.read}; the rest of the gateway's figure is its probing, gate, store and scan (${x(cpuMs(gw.warm), cpuMs(taskBin.warm))} of the task alone, warm).`,
        'Round trips and connections are counted by the simulated devices themselves. The gateway also probes each address first (TCP 16992, 16993, RMCP) and stores each device; the bare client does neither.',
      ];
      return { name: 'interrogation', title: `Interrogation: ${n.toLocaleString('en-US')} simulated devices`, reference: 'a bare Digest WS-Management client (test/bench/wsman-reference-client.ts) in one process, same reads, same concurrency', figures, notes };
    } finally {
      await fleet.stop();
    }
  },
};
