/**
 * The sweep schedule with a stand-in pool and mocked timers: every device once per interval, spread
 * over the interval in small batches, a bound on devices probed at once, offline after missed probes.
 */
import { test, mock, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../../core/log/logger.js';
import { createCancelToken, type CancelToken } from '../../../core/pool/worker-pool.js';
import type { PresenceSweepInput, PresenceSweepOutput } from '../../../workers/tasks/presence-sweep-types.js';
import type { Device, DeviceRegistry } from '../../../plugins/rest-api/api.js';
import { REMOTE_MONITOR_CONFIG_SCHEMA, type RemoteMonitorConfig } from '../../../plugins/remote-monitor/config.js';
import { openPresenceStates } from '../../../plugins/remote-monitor/presence-states.js';
import { createSweepScheduler, type PresenceSweep } from '../../../plugins/remote-monitor/sweep-scheduler.js';
import type { StatusChange } from '../../../plugins/remote-monitor/presence-states.js';
import { memoryStore } from './fixtures/memory-store.js';

const PORTS = { http: 16992, https: 16993, rmcp: 16623 };
const logger = createLogger({ level: 'silent' });

function config(overrides: Partial<RemoteMonitorConfig>): RemoteMonitorConfig {
  const p = REMOTE_MONITOR_CONFIG_SCHEMA.properties;
  return {
    intervalSeconds: 1,
    missedProbesOffline: p.missedProbesOffline.default,
    concurrency: p.concurrency.default,
    batchSize: p.batchSize.default,
    probe: { rmcpWindowMs: 100, rmcpBatchSize: 50, connectTimeoutMs: 100 },
    device: { connectTimeoutMs: 100, requestTimeoutMs: 100, credentialAttempts: 1 },
    ...overrides,
  };
}

function registry(count: number): DeviceRegistry {
  const devices: Device[] = Array.from({ length: count }, (_, i) => ({
    id: `dev-${String(i).padStart(4, '0')}`,
    ipAddress: `127.60.${i >> 8}.${(i & 255) + 1}`,
    hostname: null,
    firmwareVersion: null,
    provisioningState: null,
    tls: i % 2 === 1,
    openPorts: i % 2 === 1 ? [16993] : [16992, 16623],
    authStatus: 'ok',
    online: true,
    firstSeen: '2026-01-01T00:00:00.000Z',
    lastSeen: '2026-01-01T00:00:00.000Z',
    lastScanId: null,
  }));
  const byId = new Map(devices.map((d) => [d.id, d]));
  return { get: (id) => byId.get(id), require: (id) => byId.get(id)!, findByUuid: () => undefined, list: () => devices, count: () => devices.length, update: async () => undefined,
    setConnection: async () => ({ device: undefined, created: false, onlineChanged: false }) };
}

interface Call {
  at: number;
  input: Omit<PresenceSweepInput, 'rmcpPort'>;
  resolve: (output: PresenceSweepOutput) => void;
}

/** Sweeps (the device gate's `probe`) that finish when the test says (or at once with every device answering). */
function fakePool(mode: 'answer' | 'hold', alive: (address: string) => boolean | 'busy' = () => true): { pool: { sweep: PresenceSweep; createCancelToken: () => CancelToken }; calls: Call[] } {
  const calls: Call[] = [];
  const pool = {
    createCancelToken,
    sweep(input: Omit<PresenceSweepInput, 'rmcpPort'>) {
      return new Promise<PresenceSweepOutput>((resolve) => {
        calls.push({ at: Date.now(), input, resolve });
        if (mode === 'answer') {
          const results = input.targets.map((t) => {
            const answer = alive(t.address);
            if (answer === 'busy') return { address: t.address, alive: false, via: null, port: null, busy: true as const };
            return answer ? { address: t.address, alive: true, via: 'rmcp' as const, port: 16992 } : { address: t.address, alive: false, via: null, port: null };
          });
          resolve({ results, pongs: results.length, tcpChecked: 0, cancelled: false, elapsedMs: 1 });
        }
      });
    },
  };
  return { pool, calls };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

async function advance(ms: number, step = 50): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    mock.timers.tick(step);
    await settle();
  }
}

afterEach(() => mock.timers.reset());

test('every device is probed once per interval, spread over about twenty small batches', async () => {
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
  const devices = registry(200);
  const states = await openPresenceStates(memoryStore(), 2, logger);
  const { pool, calls } = fakePool('answer');
  const scheduler = createSweepScheduler({ ...pool, devices, states, ports: PORTS, config: config({}), logger, allows: () => true, onObserved: () => undefined });
  scheduler.start();
  await settle();
  // Nothing goes to the pool (which would start its worker threads) before the first tick.
  assert.equal(calls.length, 0, 'no probe at start');
  assert.equal(scheduler.stats().tracked, 200, 'every device tracked at start');
  // Device i is due at 5i ms; the first tick (50 ms) sends devices 0 to 10, the tick at 1,000 ms
  // the last ones and the first one again.
  await advance(1000);
  const firstInterval = calls.flatMap((c) => c.input.targets.map((t) => t.address));
  assert.equal(new Set(firstInterval).size, 200, 'all devices in the first interval');
  assert.equal(firstInterval.length, 201, 'each once, and the first one due again');
  assert.ok(calls.length >= 19, `${calls.length} batches`);
  assert.ok(Math.max(...calls.map((c) => c.input.targets.length)) <= 11, 'no burst');
  await advance(1000);
  const times = new Map<string, number[]>();
  for (const c of calls) for (const t of c.input.targets) times.set(t.address, [...(times.get(t.address) ?? []), c.at]);
  for (const [address, at] of times) {
    assert.ok(at.length >= 2, `${address} probed again`);
    // The first tick comes one tick after start (not at start), so device 0, due at once, is probed
    // one tick late the first time; from then on every probe is one interval after the one before.
    assert.ok(at[1]! - at[0]! <= 1000 && at[1]! - at[0]! >= 950, `${address}: first probe at most a tick late`);
    for (let i = 2; i < at.length; i++) assert.equal(at[i]! - at[i - 1]!, 1000, `${address} once per interval`);
  }
  const stats = scheduler.stats();
  assert.equal(stats.tracked, 200);
  assert.equal(stats.keepingUp, true);
  assert.equal(stats.tickMs, 50);
  // The management ports the fallback tries: the open ones, else the TLS port of a TLS device.
  assert.deepEqual(calls[0]!.input.targets[0]!.tcpPorts, [16992]);
  await scheduler.stop();
});

test('no more devices than the concurrency bound are probed at once, and a device in flight is not sent again', async () => {
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
  const devices = registry(300);
  const states = await openPresenceStates(memoryStore(), 2, logger);
  const { pool, calls } = fakePool('hold');
  const scheduler = createSweepScheduler({ ...pool, devices, states, ports: PORTS, config: config({ concurrency: 40, batchSize: 16 }), logger, allows: () => true, onObserved: () => undefined });
  scheduler.start();
  await advance(2000);
  const sent = calls.flatMap((c) => c.input.targets.map((t) => t.address));
  assert.equal(sent.length, 40);
  assert.equal(new Set(sent).size, 40);
  assert.ok(calls.every((c) => c.input.targets.length <= 16));
  const stats = scheduler.stats();
  assert.equal(stats.probing, 40);
  assert.ok(stats.waiting > 0);
  assert.equal(stats.keepingUp, false);
  for (const c of calls) c.resolve({ results: [], pongs: 0, tcpChecked: 0, cancelled: false, elapsedMs: 1 });
  await settle();
  assert.equal(scheduler.stats().probing, 0);
  await scheduler.stop();
});

test('a silent device is reported offline once after the missed probes, and online once when it answers again', async () => {
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
  const devices = registry(10);
  const states = await openPresenceStates(memoryStore(), 2, logger);
  let silent = true;
  const target = devices.list()[3]!;
  const { pool } = fakePool('answer', (address) => !(silent && address === target.ipAddress));
  const changes: StatusChange[] = [];
  const scheduler = createSweepScheduler({ ...pool, devices, states, ports: PORTS, config: config({}), logger, allows: () => true, onObserved: (_id, change) => change && changes.push(change) });
  scheduler.start();
  await advance(1000);
  assert.equal(changes.length, 0, 'one missed probe is not enough');
  await advance(1000);
  assert.deepEqual(changes.map((c) => [c.deviceId, c.online]), [[target.id, false]]);
  await advance(2000);
  assert.equal(changes.length, 1, 'staying offline is no change');
  silent = false;
  await advance(1000);
  assert.deepEqual(changes.map((c) => [c.deviceId, c.online]), [[target.id, false], [target.id, true]]);
  await scheduler.stop();
});

test('a device the gateway was talking to all the while (its turn held: busy) is not taken for silent', async () => {
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
  const devices = registry(10);
  const states = await openPresenceStates(memoryStore(), 2, logger);
  const target = devices.list()[5]!;
  const { pool } = fakePool('answer', (address) => (address === target.ipAddress ? 'busy' : true));
  const changes: StatusChange[] = [];
  const scheduler = createSweepScheduler({ ...pool, devices, states, ports: PORTS, config: config({}), logger, allows: () => true, onObserved: (_id, change) => change && changes.push(change) });
  scheduler.start();
  await advance(4000);
  assert.deepEqual(changes, [], 'four sweeps found it busy: nothing learnt, it stays online');
  assert.equal(scheduler.stats().tracked, 10);
  await scheduler.stop();
});
