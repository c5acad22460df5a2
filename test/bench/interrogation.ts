/**
 * 2. Interrogation: how many devices per second the gateway fully reads (Digest sign-in, firmware
 * version, provisioning state, hostname; it also reads the UUID) and how many HTTP round trips each
 * costs, beside a bare client doing the same reads against the same fleet at the same concurrency.
 */
import { fleetAddresses } from '../sim/address-range.js';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { fullyRead, listDevices } from './device-list.js';
import { FLEET_BASE, FLEET_PASSWORD, startBenchFleet } from './fleet-process.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess } from './gateway-process.js';
import { readAll } from './wsman-reference-client.js';
import { readCpuSeconds } from './process-rss.js';

/** The gateway's default `scan.interrogationConcurrency`; the reference uses the same. */
const CONCURRENCY = 64;

export const interrogation: Benchmark = {
  name: 'interrogation',
  title: 'Interrogation',
  async run({ options, workDir, log }) {
    const fleet = await startBenchFleet(options.devices);
    const addresses = fleetAddresses(FLEET_BASE, options.devices);
    try {
      log(`gateway: scanning the ${fleet.count} device addresses ${fleet.firstAddress}-${fleet.lastAddress}`);
      const gateway = await startGatewayProcess({ dataDir: workDir, plugins: { 'rest-api': {} } });
      let seconds: number;
      let total: number;
      let read: number;
      let recordSpan: number;
      let cpuSeconds: number;
      try {
        const client = new GatewayClient(gateway.url);
        await client.login();
        await client.addCredential('admin', FLEET_PASSWORD);
        await fleet.resetCounters();
        const cpuBefore = readCpuSeconds(gateway.pid) ?? 0;
        const result = await client.scan(`${fleet.firstAddress}-${fleet.lastAddress}`);
        cpuSeconds = (readCpuSeconds(gateway.pid) ?? 0) - cpuBefore;
        seconds = result.seconds;
        total = result.scan.total;
        const devices = await listDevices(client);
        read = devices.filter(fullyRead).length;
        const seen = devices.map((d) => Date.parse(d.lastSeen)).sort((a, b) => a - b);
        recordSpan = (seen.at(-1)! - seen[0]!) / 1000;
      } finally {
        await gateway.stop();
      }
      const gw = await fleet.counters();

      log(`reference: a bare Digest WS-Management client reading the same ${addresses.length} devices, ${CONCURRENCY} at a time`);
      await fleet.resetCounters();
      const started = performance.now();
      const refCpuBefore = process.cpuUsage();
      const refRead = await readAll(addresses, 16992, 'admin', FLEET_PASSWORD, CONCURRENCY);
      const refCpu = process.cpuUsage(refCpuBefore);
      const refSeconds = (performance.now() - started) / 1000;
      const ref = await fleet.counters();

      const n = fleet.count;
      const figures: Figure[] = [
        { label: 'devices fully read', unit: '', gateway: read, reference: refRead },
        { label: 'devices fully read per second, end to end', unit: 'dev/s', gateway: read / seconds, reference: refRead / refSeconds, better: 'higher', note: `gateway: the whole scan (${total} addresses probed first), ${seconds.toFixed(2)} s` },
        { label: 'devices recorded per second once reading', unit: 'dev/s', gateway: recordSpan > 0 ? (read - 1) / recordSpan : null, reference: refRead / refSeconds, better: 'higher', note: 'gateway: first to last device record' },
        { label: 'CPU milliseconds per device', unit: 'ms', gateway: (cpuSeconds * 1000) / n, reference: (refCpu.user + refCpu.system) / 1000 / n, better: 'lower', note: 'gateway: whole process during the scan, probing and storing included' },
        { label: 'HTTP round trips per device', unit: '', gateway: gw.requests / n, reference: ref.requests / n, better: 'lower' },
        { label: 'TCP connections per device', unit: '', gateway: gw.connections / n, reference: ref.connections / n, better: 'lower', note: "the device's 401 closes the connection, as AMT does" },
        { label: 'HTTP 401 challenges per device', unit: '', gateway: gw.unauthorized / n, reference: ref.unauthorized / n, better: 'lower' },
      ];
      const notes = [
        `Both read the same ${n} simulated devices (fleet in its own process), ${CONCURRENCY} devices at a time (the gateway's default scan.interrogationConcurrency), with a Digest sign-in: firmware version (CIM_SoftwareIdentity), provisioning state (AMT_SetupAndConfigurationService), hostname (AMT_GeneralSettings) and UUID (CIM_ComputerSystemPackage). The reference does exactly one Get per item; the gateway does what workers/tasks/interrogate.ts does.`,
        'Round trips and connections are counted by the simulated devices themselves. The gateway also probes each address first (TCP 16992, 16993, RMCP) and stores each device; the bare client does neither.',
      ];
      return { name: 'interrogation', title: `Interrogation: ${n.toLocaleString('en-US')} simulated devices`, reference: 'a bare Digest WS-Management client (test/bench/wsman-reference-client.ts) in one process, same reads, same concurrency', figures, notes };
    } finally {
      await fleet.stop();
    }
  },
};
