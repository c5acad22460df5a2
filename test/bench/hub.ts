/**
 * 5. Hub: 1,000 SignalR clients connected to /scanHub during a scan of the simulated fleet:
 * ScanProgress delivery latency (publication on the bus to arrival at the client) beside the same
 * scan with one client, and the scan's duration beside the same scan with no clients.
 */
import { fileURLToPath } from 'node:url';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { FLEET_PASSWORD, startBenchFleet } from './fleet-process.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess, type BenchGateway } from './gateway-process.js';
import { connectSwarm, type HubSwarm } from './hub-swarm.js';
import { deliveryLatency, type DeliveryLatency } from './latency.js';
import { missingPlugins } from './plugin-availability.js';
import { mib, readCpuSeconds, resetPeak } from './process-rss.js';

const STAMP_FIXTURE = fileURLToPath(new URL('./fixtures/bench-progress-stamp-plugin.ts', import.meta.url));

interface ScanRun {
  seconds: number;
  found: number;
  peakMiB: number;
  /** CPU seconds the gateway and the benchmark process (where the clients live) used during the scan. */
  gatewayCpu: number;
  clientCpu: number;
  latency?: DeliveryLatency;
  /** Fewest DeviceDiscovered any client received, and clients that lost their connection. */
  minDiscovered?: number;
  dropped?: number;
}

async function scanWith(gateway: BenchGateway, client: GatewayClient, range: string, swarm?: HubSwarm): Promise<ScanRun> {
  swarm?.reset();
  resetPeak(gateway.pid);
  const cpu0 = readCpuSeconds(gateway.pid) ?? 0;
  const own0 = process.cpuUsage();
  const { scan, seconds } = await client.scan(range);
  const gatewayCpu = (readCpuSeconds(gateway.pid) ?? 0) - cpu0;
  const own = process.cpuUsage(own0);
  const clientCpu = (own.user + own.system) / 1e6;
  const peakMiB = mib(gateway.rss()?.peakKiB ?? 0);
  if (!swarm) return { seconds, found: scan.found, peakMiB, gatewayCpu, clientCpu };
  // Let the last frames land before reading what the clients got.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const stamps = await client.json<Array<{ key: string; at: number }>>('GET', `/api/bench-progress-stamp/${scan.id}`);
  return {
    seconds,
    found: scan.found,
    peakMiB,
    gatewayCpu,
    clientCpu,
    latency: deliveryLatency(swarm.clients, stamps),
    minDiscovered: Math.min(...swarm.clients.map((c) => c.discovered)),
    dropped: swarm.clients.filter((c) => c.closed).length,
  };
}

export const hub: Benchmark = {
  name: 'hub',
  title: 'Hub',
  unavailable: () => missingPlugins(['rest-api', 'scan-hub']),
  async run({ options, workDir, log }) {
    const fleet = await startBenchFleet(options.devices);
    try {
      const gateway = await startGatewayProcess({ dataDir: workDir, plugins: { 'rest-api': {}, 'scan-hub': { options: { maxConnectionsPerUser: 100_000 } }, 'bench-progress-stamp': { path: STAMP_FIXTURE } } });
      try {
        const client = new GatewayClient(gateway.url);
        const token = await client.login();
        await client.addCredential('admin', FLEET_PASSWORD);
        const range = options.hubRange;
        log(`warm-up scan of ${range} (its devices are then known, as in the measured scans)`);
        await client.scan(range);
        log('scan with no client');
        const alone = await scanWith(gateway, client, range);
        log('scan with one client');
        const single = await connectSwarm(gateway.url, token, 1);
        const one = await scanWith(gateway, client, range, single);
        await single.close();
        log(`connecting ${options.hubClients} clients`);
        const t0 = performance.now();
        const swarm = await connectSwarm(gateway.url, token, options.hubClients);
        const connectSeconds = (performance.now() - t0) / 1000;
        log(`scan with ${options.hubClients} clients`);
        const many = await scanWith(gateway, client, range, swarm);
        await swarm.close();

        const n = options.hubClients;
        const figures: Figure[] = [
          { label: `scan of ${range}, seconds (reference: no client)`, unit: 's', gateway: many.seconds, reference: alone.seconds, better: 'lower', note: `with ${n} clients` },
          { label: 'ScanProgress delivery latency p50 (reference: 1 client)', unit: 'ms', gateway: many.latency!.p50, reference: one.latency!.p50, better: 'lower', note: `${many.latency!.samples.toLocaleString('en-US')} deliveries` },
          { label: 'ScanProgress delivery latency p99 (reference: 1 client)', unit: 'ms', gateway: many.latency!.p99, reference: one.latency!.p99, better: 'lower', note: `max ${many.latency!.max?.toFixed(0)} ms` },
          { label: 'DeviceDiscovered received, fewest of any client', unit: '', gateway: many.minDiscovered!, reference: one.minDiscovered!, note: `${many.found} devices found; ${many.dropped} of ${n} clients dropped` },
          { label: 'gateway CPU seconds during the scan (reference: no client)', unit: 's', gateway: many.gatewayCpu, reference: alone.gatewayCpu, better: 'lower', note: `the ${n} clients used ${many.clientCpu.toFixed(1)} s of CPU` },
          { label: 'gateway peak RSS during the scan (reference: no client)', unit: 'MiB', gateway: many.peakMiB, reference: alone.peakMiB, better: 'lower' },
        ];
        const notes = [
          `${fleet.count} simulated devices in ${range}; each measured scan re-reads devices the warm-up scan stored. Clients: raw WebSocket clients speaking the SignalR JSON protocol (negotiate, handshake, pings), all in the benchmark process; ${n} connected in ${connectSeconds.toFixed(1)} s, with no SubscribeScan (each receives every scan event: ScanStarted, every DeviceDiscovered, ScanProgress, ScanCompleted).`,
          'Latency: from the moment the ScanProgress is published on the gateway\'s event bus (stamped by a fixture plugin, test/bench/fixtures/bench-progress-stamp-plugin.ts, subscribed before the hub) to its arrival at the client; it includes the hub\'s own hold of at most one progress per 100 ms. The hub\'s own 100 % at completion has no publication to match and is left out.',
          'The clients share the machine\'s two CPUs with the gateway and the fleet, so the scan with clients also pays for the clients\' own work.',
        ];
        return { name: 'hub', title: `Hub: ${n.toLocaleString('en-US')} SignalR clients during a scan`, reference: 'the same scan with no client (duration, memory) and with one client (latency), same gateway, same run', figures, notes };
      } finally {
        await gateway.stop();
      }
    } finally {
      await fleet.stop();
    }
  },
};
