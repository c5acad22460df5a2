/**
 * Online-monitor benchmark (never run by npm test; `npx tsx test/bench/monitor-sweep.ts`, or
 * `npm run bench -- monitor-sweep`).
 *
 * 1. One sweep over 1,000 simulated devices: the `presence-sweep` task in the real worker pool, in
 *    the batches the scheduler sends (256), all at once: every device answering the ping; 10 % gone
 *    (the ping window is waited out, then the management port is refused); the ping off (TCP only).
 * 2. The schedule: 10,000 known devices (the 1,000 simulated ones plus 9,000 addresses where nothing
 *    answers) at the 60 s interval, with the real scheduler, for one interval: did every device get
 *    its probe on time, how busy was the process.
 *
 * Environment: MONITOR_BENCH_INTERVAL_S (default 60) shortens part 2, MONITOR_BENCH_KNOWN (10000).
 * Addresses: 127.62.0.0/16 (simulated) and 127.63.0.0/16 (silent), both inside 127.60.0.0/14.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createLogger } from '../../core/log/logger.js';
import { createWorkerPool, type WorkerPool } from '../../core/pool/worker-pool.js';
import type { PresenceSweepTarget } from '../../workers/tasks/presence-sweep-types.js';
import type { Device, DeviceRegistry } from '../../plugins/rest-api/api.js';
import { REMOTE_MONITOR_CONFIG_SCHEMA, type RemoteMonitorConfig } from '../../plugins/remote-monitor/config.js';
import { openPresenceStates } from '../../plugins/remote-monitor/presence-states.js';
import { createSweepScheduler } from '../../plugins/remote-monitor/sweep-scheduler.js';
import { fleetAddresses } from '../sim/address-range.js';
import { startFleet, type Fleet } from '../sim/fleet.js';
import { SIM_RMCP_PORT } from '../helpers/scan-helpers.js';
import { describeMachine, loadAverage, machineInfo } from './machine.js';
import { memoryStore } from '../plugins/remote-monitor/fixtures/memory-store.js';

const SIMULATED = 1000;
const KNOWN = Number(process.env.MONITOR_BENCH_KNOWN ?? 10_000);
const INTERVAL_S = Number(process.env.MONITOR_BENCH_INTERVAL_S ?? 60);
const PORTS = { http: 16992, https: 16993, rmcp: SIM_RMCP_PORT };
const defaults = REMOTE_MONITOR_CONFIG_SCHEMA.properties;
const CONFIG: RemoteMonitorConfig = {
  intervalSeconds: INTERVAL_S,
  missedProbesOffline: defaults.missedProbesOffline.default,
  concurrency: defaults.concurrency.default,
  batchSize: defaults.batchSize.default,
  probe: { rmcpWindowMs: defaults.probe.properties.rmcpWindowMs.default, rmcpBatchSize: defaults.probe.properties.rmcpBatchSize.default, connectTimeoutMs: defaults.probe.properties.connectTimeoutMs.default },
  device: { connectTimeoutMs: 3000, requestTimeoutMs: 10000, credentialAttempts: 3 },
};
const log = (line: string) => process.stderr.write(`[monitor-sweep] ${line}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** One sweep over `targets` as the scheduler sends it: batches of `batchSize`, all in flight at once. */
async function sweepOnce(pool: WorkerPool, targets: PresenceSweepTarget[], rmcpPort: number): Promise<{ ms: number; alive: number; viaTcp: number }> {
  const started = performance.now();
  const batches: PresenceSweepTarget[][] = [];
  for (let i = 0; i < targets.length; i += CONFIG.batchSize) batches.push(targets.slice(i, i + CONFIG.batchSize));
  const outputs = await Promise.all(
    batches.map((batch) =>
      pool.run('presence-sweep', { targets: batch, rmcpPort, rmcp: { windowMs: CONFIG.probe.rmcpWindowMs, batchSize: CONFIG.probe.rmcpBatchSize }, connectTimeoutMs: CONFIG.probe.connectTimeoutMs, tcpConcurrency: batch.length }),
    ),
  );
  const results = outputs.flatMap((o) => o.results);
  return { ms: performance.now() - started, alive: results.filter((r) => r.alive).length, viaTcp: results.filter((r) => r.via === 'tcp').length };
}

async function partOne(pool: WorkerPool, fleet: Fleet): Promise<void> {
  const targets = fleet.devices.map((d) => ({ address: d.address, tcpPorts: [d.config.tls ? 16993 : 16992] }));
  await sweepOnce(pool, targets.slice(0, 50), SIM_RMCP_PORT); // warm the worker threads
  const runs = async (label: string, rmcpPort: number) => {
    const samples = [];
    for (let i = 0; i < 5; i++) samples.push(await sweepOnce(pool, targets, rmcpPort));
    const ms = samples.map((s) => s.ms);
    console.log(`  ${label.padEnd(44)} median ${median(ms).toFixed(0).padStart(5)} ms  (min ${Math.min(...ms).toFixed(0)}, max ${Math.max(...ms).toFixed(0)}); present ${samples[0]!.alive}, by TCP ${samples[0]!.viaTcp}`);
  };
  console.log(`One sweep over ${SIMULATED} simulated devices (batches of ${CONFIG.batchSize}, 5 runs):`);
  await runs('every device answers the ping', SIM_RMCP_PORT);
  const gone = fleet.devices.filter((_, i) => i % 10 === 9);
  await Promise.all(gone.map((d) => d.stop()));
  await runs(`${gone.length} devices gone (ping window, then refused)`, SIM_RMCP_PORT);
  await Promise.all(gone.map((d) => d.start()));
  await runs('ping off: TCP connect to the management port', 0);
}

function knownDevices(fleet: Fleet): DeviceRegistry {
  const now = new Date().toISOString();
  const silent = fleetAddresses('127.63.0.1', Math.max(0, KNOWN - SIMULATED));
  const devices: Device[] = [...fleet.devices.map((d) => ({ address: d.address, tls: d.config.tls, online: true })), ...silent.map((address) => ({ address, tls: false, online: false }))].map(
    ({ address, tls, online }, i) => ({
      id: `bench-${String(i).padStart(6, '0')}`,
      ipAddress: address,
      hostname: null,
      firmwareVersion: null,
      provisioningState: 'POST',
      tls,
      openPorts: [tls ? 16993 : 16992, SIM_RMCP_PORT],
      authStatus: 'ok',
      online,
      firstSeen: now,
      lastSeen: now,
      lastScanId: null,
    }),
  );
  const byId = new Map(devices.map((d) => [d.id, d]));
  return { get: (id) => byId.get(id), require: (id) => byId.get(id)!, findByUuid: () => undefined, list: () => devices, count: () => devices.length, update: async (id, patch) => Object.assign(byId.get(id) ?? {}, patch) as Device,
    setConnection: async () => ({ device: undefined, created: false, onlineChanged: false }) };
}

async function partTwo(pool: WorkerPool, fleet: Fleet): Promise<void> {
  const devices = knownDevices(fleet);
  const logger = createLogger({ level: 'warn', write: (line) => log(line) });
  const states = await openPresenceStates(memoryStore(), CONFIG.missedProbesOffline, logger);
  let changes = 0;
  // When each device's probes came back, to check that every device is probed once per interval.
  const answeredAt = new Map<string, number[]>();
  const onObserved = (id: string, change: unknown) => {
    if (change) changes++;
    const at = answeredAt.get(id);
    if (at) at.push(performance.now());
    else answeredAt.set(id, [performance.now()]);
  };
  const scheduler = createSweepScheduler({ sweep: (input, options) => pool.run('presence-sweep', { ...input, rmcpPort: PORTS.rmcp }, options), createCancelToken: () => pool.createCancelToken(), devices, states, ports: PORTS, config: CONFIG, logger, allows: () => true, onObserved });
  const loop = monitorEventLoopDelay({ resolution: 10 });
  log(`schedule: ${devices.count()} known devices at ${INTERVAL_S} s; running two intervals`);
  const cpu = process.cpuUsage();
  const started = performance.now();
  loop.enable();
  scheduler.start();
  const samples: number[] = [];
  const watch = setInterval(() => samples.push(scheduler.stats().probing), 250);
  // One interval, then long enough for every device's second probe to come back.
  await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_S * 1000 + 2500));
  clearInterval(watch);
  const stats = scheduler.stats();
  await scheduler.stop();
  loop.disable();
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  const online = [...states.entries()].filter(([, s]) => s.online).length;
  console.log(`\nSchedule: ${devices.count()} known devices (${SIMULATED} simulated, ${devices.count() - SIMULATED} silent) at ${INTERVAL_S} s, tick ${stats.tickMs} ms:`);
  const firstAnswers = [...answeredAt.values()].map((at) => at[0]! - started);
  const periods = [...answeredAt.values()].flatMap((at) => at.slice(1).map((t, i) => t - at[i]!));
  console.log(`  probed within the first interval ${firstAnswers.filter((t) => t <= INTERVAL_S * 1000 + 2000).length} of ${devices.count()} (last first answer after ${(Math.max(...firstAnswers) / 1000).toFixed(1)} s)`);
  console.log(`  time between a device's probes   min ${(Math.min(...periods) / 1000).toFixed(2)} s, max ${(Math.max(...periods) / 1000).toFixed(2)} s over ${periods.length} pairs`);
  console.log(`  probes in the last interval      ${stats.lastInterval?.probes ?? 'n/a'}`);
  console.log(`  latest dispatch after due time  ${stats.lastInterval?.maxLagMs ?? 'n/a'} ms; slowest sweep task ${stats.lastInterval?.slowestBatchMs ?? 'n/a'} ms`);
  console.log(`  devices probed at once          mean ${(samples.reduce((a, b) => a + b, 0) / samples.length).toFixed(0)}, max ${Math.max(...samples)} (bound ${CONFIG.concurrency}); waiting for capacity ${stats.waiting}`);
  console.log(`  keeping up                      ${stats.keepingUp}`);
  console.log(`  process CPU                     ${(((used.user + used.system) / 1e6 / seconds) * 100).toFixed(1)} % of one core (main thread, pool threads and the simulator)`);
  console.log(`  event-loop delay                p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms`);
  console.log(`  online / changes                ${online} online, ${changes} state changes (expected ${SIMULATED} online, 0 changes)`);
}

async function main(): Promise<void> {
  console.log(`Online monitor on ${describeMachine(machineInfo())}; load ${loadAverage()}\n`);
  log(`starting ${SIMULATED} simulated devices`);
  const fleet = await startFleet({ count: SIMULATED, base: '127.62.0.1', rmcpPort: SIM_RMCP_PORT, tlsEvery: 10, seed: 'monitor-bench' });
  const pool = createWorkerPool({ threads: 2, concurrentTasksPerWorker: 64, maxQueue: 100_000, idleTimeoutMs: 30_000 });
  try {
    await partOne(pool, fleet);
    await partTwo(pool, fleet);
  } finally {
    await pool.close();
    await fleet.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`monitor-sweep: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
