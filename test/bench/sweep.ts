/**
 * 1. Sweep: the gateway scans a /16 of loopback holding the simulated fleet (TCP 16992, 16993 and
 * the RMCP ping, then signs in to and reads every device it finds), against nmap's connect scan of
 * the same range, in the same run, against the same fleet. The gateway also sweeps the range once
 * before the fleet starts: the same probes with no device to read, nmap's own job. The gateway runs
 * compiled, as a site runs it (`--sweep-runner tsx`: from the sources under tsx, as before).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCidr } from '../../core/net/ipv4.js';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { fullyRead, listDevices } from './device-list.js';
import { FLEET_PASSWORD, startBenchFleet } from './fleet-process.js';
import { GatewayClient } from './gateway-client.js';
import { BENCH_RMCP_PORT, startGatewayProcess, type GatewayRunner } from './gateway-process.js';
import { ensureNmap, nmapArgs, runNmap, type NmapRun } from './nmap.js';
import { mib, readCpuSeconds } from './process-rss.js';

const TCP_PORTS = [16992, 16993];
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface GatewaySweep {
  seconds: number;
  cpuSeconds: number;
  found: number;
  read: number;
  peakKiB: number;
  idleKiB: number;
  /** Peak of every process of the start command (npm, sh, tsx's CLI, node), summed. */
  treePeakKiB: number;
}

/** One sweep of `range` by a freshly started gateway with its own data directory. */
export async function gatewaySweep(dataDir: string, range: string, size: number, runner?: GatewayRunner): Promise<GatewaySweep> {
  mkdirSync(dataDir, { recursive: true });
  const gateway = await startGatewayProcess({ dataDir, runner, plugins: { 'rest-api': { options: { scan: { maxAddresses: Math.max(65_536, size) } } } } });
  try {
    const client = new GatewayClient(gateway.url);
    await client.login();
    await client.addCredential('admin', FLEET_PASSWORD);
    const idleKiB = gateway.rss()?.rssKiB ?? 0;
    const cpuBefore = readCpuSeconds(gateway.pid) ?? 0;
    const result = await client.scan(range);
    const cpuSeconds = (readCpuSeconds(gateway.pid) ?? 0) - cpuBefore;
    const peakKiB = gateway.rss()?.peakKiB ?? 0;
    const treePeakKiB = gateway.treeRss()?.peakKiB ?? 0;
    const read = (await listDevices(client)).filter(fullyRead).length;
    return { seconds: result.seconds, cpuSeconds, found: result.scan.found, read, peakKiB, idleKiB, treePeakKiB };
  } finally {
    await gateway.stop();
  }
}

export const sweep: Benchmark = {
  name: 'sweep',
  title: 'Sweep',
  async run({ options, workDir, log }) {
    const size = 2 ** (32 - parseCidr(options.range)!.prefix);
    const runner = options.sweepRunner;
    if (runner === 'compiled') {
      log('building dist/ if stale (the gateway runs compiled, as a site runs it)');
      const build = spawnSync(process.execPath, [`${ROOT}scripts/build.mjs`, '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
      if (build.status !== 0) throw new Error('npm run build failed; the compiled gateway cannot be measured');
    }
    log(`probing only: the gateway (${runner}) sweeps ${options.range} (${size} addresses) with no device in it`);
    const probeOnly = await gatewaySweep(join(workDir, 'probe-only'), options.range, size, runner);
    if (probeOnly.found !== 0) throw new Error(`the sweep with no fleet found ${probeOnly.found} devices`);
    log(`starting ${options.devices} simulated devices`);
    const fleet = await startBenchFleet(options.devices);
    const notes: string[] = [];
    try {
      log(`the gateway sweeps ${options.range} with the fleet in it`);
      const full = await gatewaySweep(join(workDir, 'full'), options.range, size, runner);
      const nmap = ensureNmap(log);
      let ref: NmapRun | null = null;
      if ('path' in nmap) {
        log(`nmap ${nmapArgs(options.range, TCP_PORTS).join(' ')}`);
        ref = await runNmap(nmap.path, options.range, TCP_PORTS);
        notes.push(`Reference command: \`nmap ${nmapArgs(options.range, TCP_PORTS).join(' ')}\` (Debian nmap ${ref.version}; it reported "scanned in ${ref.reportedSeconds ?? '?'} seconds"); nmap's CPU time is sampled from /proc every 20 ms.`);
      } else {
        notes.push(`nmap reference skipped: ${nmap.missing}.`);
      }
      notes.push(
        `"Sweep with the fleet": the gateway probes every address (TCP ${TCP_PORTS.join(' and ')} and the RMCP ping on UDP ${BENCH_RMCP_PORT}) and also signs in to and reads every device found (Digest, firmware version, provisioning state, hostname, UUID) and stores it; nmap only probes the two TCP ports.`,
        `"Probing only": the same gateway sweep of the same range, run before the fleet started, so every probe is refused or unanswered and no device is read: the work nmap does, plus the RMCP ping.`,
        `Fleet: ${fleet.count} simulated devices ${fleet.firstAddress} – ${fleet.lastAddress} in a separate process; each gateway sweep is a freshly started gateway (${runner === 'compiled' ? "compiled: node dist/core/main.js with the bin's flags" : 'from the sources: node --import tsx core/main.ts, without the bin\'s flags'}) with its default scan settings (4,096 probes in flight, 50,000 new probes a second, adaptive timeouts, 2 worker threads); gateway idle RSS before the sweep ${mib(full.idleKiB).toFixed(0)} MiB.`,
      );
      const figures: Figure[] = [
        { label: `sweep of ${options.range} with the fleet, seconds`, unit: 's', gateway: full.seconds, reference: ref?.seconds ?? null, better: 'lower', note: `gateway also reads ${full.read.toLocaleString('en-US')} devices` },
        { label: 'probing only (no device in range), seconds', unit: 's', gateway: probeOnly.seconds, reference: ref?.seconds ?? null, better: 'lower', note: 'gateway also pings RMCP' },
        { label: 'addresses per second, with the fleet', unit: 'addr/s', gateway: size / full.seconds, reference: ref ? size / ref.seconds : null, better: 'higher' },
        { label: 'addresses per second, probing only', unit: 'addr/s', gateway: size / probeOnly.seconds, reference: ref ? size / ref.seconds : null, better: 'higher' },
        { label: 'devices found', unit: '', gateway: full.found, reference: ref?.openHosts ?? null, note: `${full.read.toLocaleString('en-US')} fully read by the gateway` },
        { label: 'CPU seconds, with the fleet', unit: 's', gateway: full.cpuSeconds, reference: ref?.cpuSeconds ?? null, better: 'lower', note: 'user + system; gateway incl. worker threads' },
        { label: 'CPU seconds, probing only', unit: 's', gateway: probeOnly.cpuSeconds, reference: ref?.cpuSeconds ?? null, better: 'lower' },
        { label: 'peak RSS, with the fleet', unit: 'MiB', gateway: mib(full.peakKiB), reference: ref ? mib(ref.rss.peakKiB) : null, better: 'lower', note: 'gateway process incl. worker threads' },
      ];
      return { name: 'sweep', title: `Sweep: ${options.range} (${size.toLocaleString('en-US')} addresses) holding ${fleet.count.toLocaleString('en-US')} simulated devices`, reference: 'nmap -n -Pn -sT -T5 -p16992,16993 over the same range, same fleet, same run', figures, notes };
    } finally {
      await fleet.stop();
    }
  },
};
