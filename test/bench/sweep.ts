/**
 * 1. Sweep: the gateway scans a /16 of loopback holding the simulated fleet (TCP 16992, 16993 and
 * the RMCP ping, then signs in to and reads every device it finds), against nmap's connect scan of
 * the same range, in the same run, against the same fleet.
 */
import { parseCidr } from '../../core/net/ipv4.js';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { fullyRead, listDevices } from './device-list.js';
import { FLEET_PASSWORD, startBenchFleet } from './fleet-process.js';
import { GatewayClient } from './gateway-client.js';
import { BENCH_RMCP_PORT, startGatewayProcess } from './gateway-process.js';
import { ensureNmap, nmapArgs, runNmap, type NmapRun } from './nmap.js';
import { mib } from './process-rss.js';

const TCP_PORTS = [16992, 16993];

export const sweep: Benchmark = {
  name: 'sweep',
  title: 'Sweep',
  async run({ options, workDir, log }) {
    const size = 2 ** (32 - parseCidr(options.range)!.prefix);
    log(`starting ${options.devices} simulated devices`);
    const fleet = await startBenchFleet(options.devices);
    const notes: string[] = [];
    try {
      log(`starting the gateway; sweeping ${options.range} (${size} addresses)`);
      const gateway = await startGatewayProcess({ dataDir: workDir, plugins: { 'rest-api': { options: { scan: { maxAddresses: Math.max(65_536, size) } } } } });
      let seconds: number;
      let found: number;
      let read: number;
      let peakKiB: number;
      let idleKiB: number;
      try {
        const client = new GatewayClient(gateway.url);
        await client.login();
        await client.addCredential('admin', FLEET_PASSWORD);
        idleKiB = gateway.rss()?.rssKiB ?? 0;
        const result = await client.scan(options.range);
        seconds = result.seconds;
        found = result.scan.found;
        peakKiB = gateway.rss()?.peakKiB ?? 0;
        read = (await listDevices(client)).filter(fullyRead).length;
      } finally {
        await gateway.stop();
      }

      const nmap = ensureNmap(log);
      let ref: NmapRun | null = null;
      if ('path' in nmap) {
        log(`nmap ${nmapArgs(options.range, TCP_PORTS).join(' ')}`);
        ref = await runNmap(nmap.path, options.range, TCP_PORTS);
        notes.push(`Reference command: \`nmap ${nmapArgs(options.range, TCP_PORTS).join(' ')}\` (Debian nmap ${ref.version}; it reported "scanned in ${ref.reportedSeconds ?? '?'} seconds").`);
      } else {
        notes.push(`nmap reference skipped: ${nmap.missing}.`);
      }
      notes.push(
        `The gateway's time covers probing every address (TCP ${TCP_PORTS.join(' and ')} and the RMCP ping on UDP ${BENCH_RMCP_PORT}) and also signing in to and reading every device found (Digest, firmware version, provisioning state, hostname, UUID) and storing it; nmap only probes the two TCP ports.`,
        `Fleet: ${fleet.count} simulated devices ${fleet.firstAddress} – ${fleet.lastAddress} in a separate process; the gateway ran with its default scan settings (256 probes in flight, 2 worker threads) and a gateway idle RSS of ${mib(idleKiB).toFixed(0)} MiB before the scan.`,
      );
      const figures: Figure[] = [
        { label: `sweep of ${options.range}, seconds`, unit: 's', gateway: seconds, reference: ref?.seconds ?? null, better: 'lower' },
        { label: 'addresses per second', unit: 'addr/s', gateway: size / seconds, reference: ref ? size / ref.seconds : null, better: 'higher' },
        { label: 'devices found', unit: '', gateway: found, reference: ref?.openHosts ?? null, note: `${read.toLocaleString('en-US')} fully read by the gateway` },
        { label: 'peak RSS', unit: 'MiB', gateway: mib(peakKiB), reference: ref ? mib(ref.rss.peakKiB) : null, better: 'lower', note: 'gateway process incl. worker threads' },
      ];
      return { name: 'sweep', title: `Sweep: ${options.range} (${size.toLocaleString('en-US')} addresses) holding ${fleet.count.toLocaleString('en-US')} simulated devices`, reference: 'nmap -n -Pn -sT -T5 -p16992,16993 over the same range, same fleet, same run', figures, notes };
    } finally {
      await fleet.stop();
    }
  },
};
