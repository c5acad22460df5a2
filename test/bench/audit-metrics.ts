/**
 * What the audit trail and the metrics cost the hot paths (`npm run bench -- audit-metrics`): server
 * CPU per request of a power-state read (a WS-Management exchange with a simulated device) and of
 * GET /api/devices/{id}, in a gateway with the `audit` and `metrics` plugins on, beside the same
 * gateway with both off, in the same run: both run side by side and are measured in alternating
 * rounds, so that a change of machine load hits both alike. Target: within 5 %.
 */
import { mkdirSync } from 'node:fs';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { cpuPerRequest } from './cpu-per-request.js';
import { startBenchFleet, FLEET_PASSWORD } from './fleet-process.js';
import { GatewayClient } from './gateway-client.js';
import { startGatewayProcess, type BenchGateway, type PluginChoice } from './gateway-process.js';
import { missingPlugins } from './plugin-availability.js';
import { Registry } from 'prom-client';
import { createEventBus } from '../../core/events/event-bus.js';
import { createLogger } from '../../core/log/logger.js';
import { registerOperationMetrics } from '../../plugins/metrics/operation-metrics.js';
import { registerTrafficMetrics } from '../../plugins/metrics/traffic-metrics.js';

const DEVICES = 8;
const ROUNDS = 5;
const POWER_READS = 2_000;
const DEVICE_READS = 20_000;
const CONNECTIONS = 8;
const SCRAPE_TOKEN = 'bench-scrape-token-0123456789';

interface Side {
  gateway: BenchGateway;
  token: string;
  powerPaths: string[];
  devicePaths: string[];
}

async function startSide(dataDir: string, on: boolean, range: string): Promise<Side> {
  mkdirSync(dataDir, { recursive: true });
  const plugins: Record<string, PluginChoice> = on ? { 'rest-api': {}, 'power-mgmt': {}, audit: {}, metrics: { options: { token: SCRAPE_TOKEN } } } : { 'rest-api': {}, 'power-mgmt': {} };
  const gateway = await startGatewayProcess({ dataDir, plugins });
  const client = new GatewayClient(gateway.url);
  const token = await client.login();
  await client.addCredential('admin', FLEET_PASSWORD);
  await client.scan(range, { timeoutMs: 2000 });
  const devices = await client.json<Array<{ id: string }>>('GET', '/api/devices');
  if (devices.length !== DEVICES) throw new Error(`the scan found ${devices.length} of ${DEVICES} devices`);
  return { gateway, token, powerPaths: devices.map((d) => `/api/power/${d.id}`), devicePaths: devices.map((d) => `/api/devices/${d.id}`) };
}

/**
 * The metrics' own work per request, measured in this process where nothing else competes: the
 * kernel's `HttpRequestCompleted` publish with the metrics listener observing it, and a power read's
 * `DeviceOperationCompleted`. Precise where the gateway-process figures are blurred by machine load.
 */
function bookkeepingMicros(): { http: number; operation: number } {
  const registry = new Registry();
  const bus = createEventBus(createLogger({ level: 'warn' }));
  registerTrafficMetrics(registry, bus);
  registerOperationMetrics(registry, bus);
  const time = (fn: (i: number) => void) => {
    for (let i = 0; i < 20_000; i++) fn(i);
    const n = 500_000;
    const started = process.cpuUsage();
    for (let i = 0; i < n; i++) fn(i);
    const used = process.cpuUsage(started);
    return (used.user + used.system) / n;
  };
  const routes = ['/api/devices/:id', '/api/power/:deviceId', '/api/devices'];
  return {
    http: time((i) => bus.publish('HttpRequestCompleted', { method: 'GET', route: routes[i % 3]!, status: 200, durationSeconds: 0.0004 })),
    operation: time(() => bus.publish('DeviceOperationCompleted', { operation: 'power-read', outcome: 'ok', durationSeconds: 0.02 })),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(side: Side, paths: string[], requests: number): Promise<number> {
  return cpuPerRequest({ url: side.gateway.url + paths[0], pid: side.gateway.pid, headers: { authorization: `Bearer ${side.token}` }, paths, connections: CONNECTIONS, requests });
}

export const auditMetrics: Benchmark = {
  name: 'audit-metrics',
  title: 'Audit trail and metrics: cost on the hot paths',
  unavailable: () => missingPlugins(['rest-api', 'power-mgmt', 'audit', 'metrics']),
  async run({ workDir, log }) {
    const fleet = await startBenchFleet(DEVICES);
    const range = `${fleet.firstAddress}-${fleet.lastAddress}`;
    let off: Side | undefined;
    let on: Side | undefined;
    try {
      log(`two gateways, audit+metrics off and on, each scanning ${DEVICES} simulated devices`);
      off = await startSide(`${workDir}/off`, false, range);
      on = await startSide(`${workDir}/on`, true, range);
      const cpu = { powerOff: [] as number[], powerOn: [] as number[], oneOff: [] as number[], oneOn: [] as number[] };
      log('a warm-up round of each, not counted (the first round of power reads costs both about twice the later ones)');
      for (const side of [off, on]) {
        await measure(side, side.powerPaths, POWER_READS);
        await measure(side, side.devicePaths, DEVICE_READS);
      }
      for (let round = 1; round <= ROUNDS; round++) {
        log(`round ${round} of ${ROUNDS}: ${POWER_READS} power reads and ${DEVICE_READS} device reads to each, ${CONNECTIONS} connections`);
        // Alternating which goes first, so that neither always runs right after the other's load.
        const order: Array<[Side, 'Off' | 'On']> = round % 2 ? [[off, 'Off'], [on, 'On']] : [[on, 'On'], [off, 'Off']];
        for (const [side, name] of order) cpu[`power${name}`].push(await measure(side, side.powerPaths, POWER_READS));
        for (const [side, name] of order) cpu[`one${name}`].push(await measure(side, side.devicePaths, DEVICE_READS));
      }
      const scrape = await fetch(`${on.gateway.url}/metrics`, { headers: { authorization: `Bearer ${SCRAPE_TOKEN}` } });
      const exposition = await scrape.text();
      if (!exposition.includes('amtgw_device_operations_total{operation="power-read",outcome="ok"}')) throw new Error('the metrics did not count the power reads');
      const micro = bookkeepingMicros();
      const figures: Figure[] = [
        { label: 'GET /api/power/{id}: server CPU per request, audit+metrics on', unit: 'µs', gateway: median(cpu.powerOn), reference: median(cpu.powerOff), better: 'lower', note: `rounds on ${cpu.powerOn.map((v) => v.toFixed(0)).join('/')}, off ${cpu.powerOff.map((v) => v.toFixed(0)).join('/')}` },
        { label: 'GET /api/devices/{id}: server CPU per request, audit+metrics on', unit: 'µs', gateway: median(cpu.oneOn), reference: median(cpu.oneOff), better: 'lower', note: `rounds on ${cpu.oneOn.map((v) => v.toFixed(1)).join('/')}, off ${cpu.oneOff.map((v) => v.toFixed(1)).join('/')}` },
        { label: 'metrics bookkeeping per GET /api/devices/{id} (in-process), beside its server CPU with both off', unit: 'µs', gateway: micro.http, reference: median(cpu.oneOff), better: 'lower', note: 'HttpRequestCompleted publish + histogram observe' },
        { label: 'metrics bookkeeping per power read (in-process), beside its server CPU with both off', unit: 'µs', gateway: micro.http + micro.operation, reference: median(cpu.powerOff), better: 'lower', note: '+ DeviceOperationCompleted: counter and histogram' },
        { label: 'gateway RSS after the load, audit+metrics on', unit: 'MiB', gateway: (on.gateway.rss()?.rssKiB ?? 0) / 1024, reference: (off.gateway.rss()?.rssKiB ?? 0) / 1024, better: 'lower' },
      ];
      const notes = [
        `Two gateway processes side by side on one simulated fleet of ${DEVICES} devices (its own process): rest-api and power-mgmt, and in one of them also audit (default options) and metrics (token auth). After a warm-up round of each (not counted), each figure is the median of ${ROUNDS} rounds; each round measures both, the first of them alternating.`,
        `Server CPU per request: user + system time of the gateway process and its worker threads (/proc/<pid>/stat) over ${POWER_READS.toLocaleString('en-US')} power reads (the device exchange runs in the worker pool of the same process) and ${DEVICE_READS.toLocaleString('en-US')} device reads, ${CONNECTIONS} connections, after a tenth as many to warm up.`,
        'Neither read is an audited action (reads are not recorded), so the audit trail adds nothing to them by design; the metrics add an HTTP-duration observation per request and an operation count and duration per power read, through the event bus. Target: within 5 %.',
        'The bookkeeping figures time that added work alone (500,000 publishes with the metrics plugin\'s listeners, CPU time of this process): its ratio to the request\'s whole server CPU is the metrics\' share, which the two-process figures cannot resolve on a loaded machine (their rounds differ by ±20 % from one another).',
      ];
      return { name: 'audit-metrics', title: 'Audit trail and metrics: cost on the hot paths', reference: 'the same gateway with audit and metrics off, same run', figures, notes };
    } finally {
      await on?.gateway.stop();
      await off?.gateway.stop();
      await fleet.stop();
    }
  },
};
