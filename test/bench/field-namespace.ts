/**
 * The field benchmark's work, run by field.ts inside a fresh network namespace (loopback up): drops
 * every packet to the silent blocks with nftables, then per size starts the slow fleet, scans the
 * range with a freshly started compiled gateway (default settings), runs tuned nmap over the same
 * range, and reads every device at once with the bare client (the floor). Prints the results as one
 * JSON line on stdout; progress goes to stderr.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Device } from '../../plugins/rest-api/api.js';
import { fleetAddresses } from '../sim/address-range.js';
import type { BenchResult, Figure } from './bench-result.js';
import { fullyRead } from './device-list.js';
import { FLEET_PASSWORD, startBenchFleet, type BenchFleet } from './fleet-process.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess } from './gateway-process.js';
import { ensureNmap, runNmap, tunedNmapArgs, type NmapRun } from './nmap.js';
import { mib, readCpuSeconds, readThreadCpu } from './process-rss.js';
import { readDevice } from './wsman-reference-client.js';
import { watchProbing } from './probing-watch.js';

const TCP_PORTS = [16992, 16993];
const log = (line: string) => process.stderr.write(`${line}\n`);

export interface FieldSize {
  prefix: number;
  range: string;
  base: string;
  devices: number;
  /** nft range expression of the silent block, and how many addresses it holds. */
  silent: string;
  silentCount: number;
  /** Every Nth device has another password: it is read (Server header) but not signed in to. */
  altPasswordEvery: number;
}

export const SIZES: Record<number, FieldSize> = {
  19: { prefix: 19, range: '127.200.0.0/19', base: '127.200.0.1', devices: 1000, silent: '127.200.4.0-127.200.19.255', silentCount: 4096, altPasswordEvery: 10 },
  16: { prefix: 16, range: '127.201.0.0/16', base: '127.201.0.1', devices: 2000, silent: '127.201.16.0-127.201.255.255', silentCount: 61_440, altPasswordEvery: 0 },
};

export function dropSilentBlocks(sizes: FieldSize[]): void {
  // Dropped on input: the SYN leaves (no EPERM for the prober) and nothing ever comes back, as from an absent host.
  const rules = `table inet field_bench {\n  chain input {\n    type filter hook input priority 0; policy accept;\n    ip daddr { ${sizes.map((s) => s.silent).join(', ')} } drop\n  }\n}\n`;
  const nft = spawnSync('nft', ['-f', '-'], { input: rules, encoding: 'utf8' });
  if (nft.status !== 0) throw new Error(`nft refused the rules: ${nft.stderr}`);
}

interface GatewayScan {
  seconds: number;
  probeWindowSeconds: number;
  cpuSeconds: number;
  peakKiB: number;
  devices: Device[];
  progressEvents: number;
  /** The gateway's CPU seconds during the scan per thread: main first, then the others, busiest first. */
  threads: Array<[string, number]>;
  /** The simulated fleet's CPU seconds during the scan (its process serves every device). */
  fleetCpuSeconds: number;
}

/** CPU seconds per thread between two readings, busiest first, threads under 0.05 s summed as `rest`. */
export function threadDiff(before: Map<string, number>, after: Map<string, number>): Array<[string, number]> {
  const used = [...after].map(([key, value]): [string, number] => [key, value - (before.get(key) ?? 0)]).sort((a, b) => Number(b[0] === 'main') - Number(a[0] === 'main') || b[1] - a[1]);
  const shown = used.filter(([key, s]) => key === 'main' || s >= 0.05);
  const rest = used.filter((entry) => !shown.includes(entry)).reduce((sum, [, s]) => sum + s, 0);
  return rest > 0 ? [...shown, ['rest', rest]] : shown;
}

async function gatewayScan(dataDir: string, size: FieldSize, fleetPid: number): Promise<GatewayScan> {
  mkdirSync(dataDir, { recursive: true });
  const gateway = await startGatewayProcess({ dataDir, runner: 'compiled', plugins: { 'rest-api': {}, 'scan-hub': {} } });
  try {
    const client = new GatewayClient(gateway.url);
    await client.login();
    await client.addCredential('admin', FLEET_PASSWORD);
    const cpuBefore = readCpuSeconds(gateway.pid) ?? 0;
    const threadsBefore = readThreadCpu(gateway.pid);
    const fleetBefore = readCpuSeconds(fleetPid) ?? 0;
    const probing = await watchProbing(gateway.url, client.token);
    const t0 = performance.now();
    const started = await client.startScan(size.range);
    await probing.subscribe(started.id);
    const scan = await client.waitScan(started.id, 900_000, 50);
    const probedAt = probing.probedAt();
    await probing.stop();
    const probeWindowSeconds = probedAt === null ? 0 : (probedAt - t0) / 1000;
    if (scan.status !== 'completed') throw new Error(`the field scan ended ${scan.status}`);
    const cpuSeconds = (readCpuSeconds(gateway.pid) ?? 0) - cpuBefore;
    const threads = threadDiff(threadsBefore, readThreadCpu(gateway.pid));
    const fleetCpuSeconds = (readCpuSeconds(fleetPid) ?? 0) - fleetBefore;
    const peakKiB = gateway.rss()?.peakKiB ?? 0;
    const devices = await client.json<Device[]>('GET', '/api/devices');
    const seconds = (Date.parse(scan.finishedAt!) - Date.parse(scan.startedAt)) / 1000;
    return { seconds, probeWindowSeconds: probeWindowSeconds || seconds, cpuSeconds, peakKiB, devices, progressEvents: 0, threads, fleetCpuSeconds };
  } finally {
    await gateway.stop();
  }
}

/** The bare client reads every device at once: the wall time is the slowest device's serial read. */
export async function bareReadAll(fleet: BenchFleet, size: FieldSize): Promise<{ seconds: number; cpuSeconds: number; read: number }> {
  const addresses = fleetAddresses(size.base, fleet.count);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const results = await Promise.all(addresses.map((a, i) => readDevice(a, 16992, 'admin', size.altPasswordEvery && i % size.altPasswordEvery === size.altPasswordEvery - 1 ? 'Other-P@ss2' : FLEET_PASSWORD).catch(() => undefined)));
  const seconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu);
  return { seconds, cpuSeconds: (used.user + used.system) / 1e6, read: results.filter((r) => r?.ok).length };
}

async function runSize(workDir: string, size: FieldSize, nmapPath: string | null): Promise<BenchResult> {
  const addresses = 2 ** (32 - size.prefix);
  log(`${size.range}: starting ${size.devices} slow simulated devices (50-400 ms per response)`);
  const fleet = await startBenchFleet(size.devices, { base: size.base, responseDelayMs: true, altPasswordEvery: size.altPasswordEvery, seed: `field-${size.prefix}` });
  try {
    // The simulator is one Node process: its first thousand answers run its code unoptimised, a
    // warm-up a device's firmware does not have, on the CPUs the gateway's scan needs.
    log(`${size.range}: warming the simulated devices up (the bare client reads each once, not measured)`);
    const warmUp = await bareReadAll(fleet, size);
    await fleet.resetCounters();
    log(`${size.range}: the gateway scans it (default settings, compiled, fresh data directory)`);
    const gw = await gatewayScan(join(workDir, `gw-${size.prefix}`), size, fleet.pid);
    const counters = await fleet.counters();
    let nmap: NmapRun | null = null;
    let fleetDuringNmap = 0;
    if (nmapPath) {
      log(`${size.range}: nmap ${tunedNmapArgs(size.range, TCP_PORTS).join(' ')}`);
      const fleetBefore = readCpuSeconds(fleet.pid) ?? 0;
      nmap = await runNmap(nmapPath, size.range, TCP_PORTS, tunedNmapArgs(size.range, TCP_PORTS));
      fleetDuringNmap = (readCpuSeconds(fleet.pid) ?? 0) - fleetBefore;
    }
    log(`${size.range}: the bare client reads all ${fleet.count} devices at once (the floor)`);
    const bare = await bareReadAll(fleet, size);
    const floor = gw.probeWindowSeconds + bare.seconds;
    const signedIn = gw.devices.filter((d) => d.authStatus === 'ok').length;
    const read = gw.devices.filter(fullyRead).length;
    const tag = `/${size.prefix}`;
    const figures: Figure[] = [
      { label: `${tag}: scan of ${size.range}, seconds (reference: tuned nmap, probing only)`, unit: 's', gateway: gw.seconds, reference: nmap?.seconds ?? null, better: 'lower', note: `gateway also reads every device` },
      { label: `${tag}: scan, seconds (reference: the floor)`, unit: 's', gateway: gw.seconds, reference: floor, better: 'lower', note: `floor: probe window ${gw.probeWindowSeconds.toFixed(2)} s + bare read of every device at once ${bare.seconds.toFixed(2)} s` },
      { label: `${tag}: devices recorded`, unit: '', gateway: gw.devices.length, reference: fleet.count, note: `nmap found ${nmap?.openHosts ?? '?'} hosts with a port open` },
      { label: `${tag}: devices signed in and fully read`, unit: '', gateway: read, reference: bare.read, note: `${signedIn} signed in; reference: the bare client` },
      { label: `${tag}: CPU seconds`, unit: 's', gateway: gw.cpuSeconds, reference: nmap?.cpuSeconds ?? null, better: 'lower', note: `user + system, gateway incl. worker threads; bare client ${bare.cpuSeconds.toFixed(2)} s` },
      { label: `${tag}: peak RSS`, unit: 'MiB', gateway: mib(gw.peakKiB), reference: nmap ? mib(nmap.rss.peakKiB) : null, better: 'lower' },
      { label: `${tag}: most connections one device had open at once`, unit: '', gateway: counters.peakOpenConnections, reference: 1, better: 'lower', note: 'counted by the simulated devices, probes included' },
    ];
    const notes = [
      `${tag}: ${size.range} (${addresses.toLocaleString('en-US')} addresses): ${fleet.count} devices ${fleet.firstAddress} – ${fleet.lastAddress}, each answering every HTTP request after its own 50-400 ms${size.altPasswordEvery ? `, every ${size.altPasswordEvery}th with another password (read, not signed in)` : ''}; ${size.silentCount.toLocaleString('en-US')} silent addresses (${size.silent}, dropped by nftables on input); the rest refuse (RST).`,
      `${tag}: nmap: \`nmap ${tunedNmapArgs(size.range, TCP_PORTS).join(' ')}\`${nmap ? ` (nmap ${nmap.version}, reported "scanned in ${nmap.reportedSeconds ?? '?'} seconds", ${nmap.openHosts} hosts open)` : ' skipped'}; it only probes.`,
      `${tag}: gateway: compiled (node dist/core/main.js with the bin's flags), rest-api only, default settings (scan-hub on, as by default, one client following the scan), its scan started once it served and held the credential (its worker threads boot with the scan's first task); its time is the scan's startedAt to finishedAt; probe window: until the first ScanProgress on /scanHub with every TCP probe decided (probesDecided = probesTotal; the hub sends at most one progress per 100 ms). Devices seen by the fleet: ${counters.connections} TCP connections, ${counters.requests} requests.`,
      `${tag}: CPU seconds during the gateway's scan, per gateway thread (main first, then the busiest): ${gw.threads.map(([key, s]) => `${key} ${s.toFixed(2)}`).join(', ')}; the simulated fleet's process (every device's HTTP, TLS and RMCP, on the same CPUs) ${gw.fleetCpuSeconds.toFixed(2)} s${nmap ? `, and ${fleetDuringNmap.toFixed(2)} s during nmap's run` : ''}. Before the scan the bare client read every device once, unmeasured (${warmUp.seconds.toFixed(2)} s, ${warmUp.read} read), so that the simulator's own warm-up (its code running unoptimised) is not on the gateway's CPUs.`,
    ];
    return { name: 'field', title: `Field: ${size.range} with ${fleet.count.toLocaleString('en-US')} slow devices and ${size.silentCount.toLocaleString('en-US')} silent addresses`, reference: 'tuned nmap (probing only), and the floor, same namespace, same run', figures, notes };
  } finally {
    await fleet.stop();
  }
}

async function main(): Promise<void> {
  const { workDir, sizes } = JSON.parse(process.argv[2] ?? '{}') as { workDir: string; sizes: number[] };
  const chosen = sizes.map((n) => SIZES[n]!);
  dropSilentBlocks(chosen);
  const nmap = ensureNmap(log);
  const results: BenchResult[] = [];
  for (const size of chosen) results.push(await runSize(workDir, size, 'path' in nmap ? nmap.path : null));
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

// Run as the namespace's process (field.ts); imported by ab-field.ts for its sizes and rules.
if (process.argv[1] === fileURLToPath(import.meta.url)) main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(`field: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
