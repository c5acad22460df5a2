/**
 * Measures how long the gateway's pool needs to read the scan items (firmware version, provisioning
 * state, hostname, and optionally the UUID) from a fleet of simulated devices, and how many HTTP round
 * trips each device costs. The fleet runs in a child process (as in the demo), the pool in this one.
 *
 *   tsx test/sim/measure-fleet-read.ts [--count 1000] [--base 127.21.0.1] [--threads 2] [--per-worker 64] [--tls-every 0]
 *
 * A benchmark, not a test: never run by `npm test`.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createWorkerPool } from '../../core/pool/worker-pool.js';
import type { InterrogateOutput } from '../../workers/tasks/task-types.js';
import '../../workers/tasks/task-types.js';
import type { FleetManifest } from './manifest.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000' },
    base: { type: 'string', default: '127.21.0.1' },
    threads: { type: 'string', default: '2' },
    'per-worker': { type: 'string', default: '64' },
    'tls-every': { type: 'string', default: '0' },
  },
});

const PASSWORD = 'Measure-P@ss1';

/** User + system CPU of a process, from /proc (Linux), in ms. */
function procCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function startSimulator(): Promise<{ manifest: FleetManifest; stop: () => void; cpuMs: () => number }> {
  const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', cli, '--count', values.count!, '--base', values.base!, '--rmcp-port', '0', '--tls-every', values['tls-every']!, '--password', PASSWORD, '--summary'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const summary = JSON.parse(line) as FleetManifest;
  return { manifest: summary, stop: () => child.kill('SIGTERM'), cpuMs: () => procCpuMs(child.pid!) };
}

async function main(): Promise<void> {
  const sim = await startSimulator();
  const { fleetAddresses } = await import('./address-range.js');
  const addresses = fleetAddresses(values.base!, sim.manifest.count);
  const tlsEvery = Number(values['tls-every']);
  const pool = createWorkerPool({ threads: Number(values.threads), concurrentTasksPerWorker: Number(values['per-worker']), maxQueue: 100_000, idleTimeoutMs: 30_000 });
  const credential = { id: 'measure', username: 'admin', password: PASSWORD };
  const timeouts = { connectMs: 5_000, firstByteMs: 20_000, totalMs: 60_000 };
  try {
    // Warm the worker threads (loading TypeScript) so the figure measures device I/O.
    await Promise.all(Array.from({ length: Number(values.threads) * 2 }, () => pool.run('interrogate', { address: '127.23.255.1', ports: { http: 1 }, credential, timeouts })));
    const results: Record<string, unknown> = { devices: addresses.length, simulatorStartupMs: sim.manifest.startupMs };
    for (const readUuid of [false, true]) {
      const started = performance.now();
      const cpu0 = process.cpuUsage();
      const simCpu0 = sim.cpuMs();
      const outs: InterrogateOutput[] = await Promise.all(
        addresses.map((address, i) =>
          pool.run('interrogate', { address, tls: tlsEvery > 0 && i % tlsEvery === tlsEvery - 1, credential, timeouts, readUuid }),
        ),
      );
      const ms = Math.round(performance.now() - started);
      const ok = outs.filter((o) => o.authStatus === 'ok' && o.hostname && o.firmwareVersion && o.provisioningState !== null).length;
      const trips = outs.map((o) => o.roundTrips).sort((a, b) => a - b);
      // The first pass meets every device for the first time (one 401 each); the second reuses the nonces.
      results[readUuid ? 'rescanWithUuid' : 'firstContactScanItems'] = {
        wallMs: ms,
        ok,
        failed: outs.length - ok,
        roundTripsPerDevice: { min: trips[0], median: trips[Math.floor(trips.length / 2)], max: trips.at(-1) },
        devicesPerSecond: Math.round((outs.length / ms) * 1000),
        gatewayCpuMs: Math.round((process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1000),
        simulatorCpuMs: Math.round(sim.cpuMs() - simCpu0),
      };
    }
    console.log(JSON.stringify(results, null, 2));
  } finally {
    await pool.close();
    sim.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
