/**
 * The device gate's admission follows what device operations cost: operations waiting on slow
 * devices are admitted far beyond where it started (up to `deviceConnections`), operations that need
 * the CPU are held back, and no device ever has two connections at once. Proved against the
 * simulator, with the real event-loop delay of this thread as the signal; outcomes only (how far the
 * limit went), no timing is asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDeviceTurns, type DeviceTurns } from '../../../plugins/devices/gate/device-turns.js';
import { createAdmission } from '../../../plugins/devices/gate/device-admission.js';
import { createThreadDelayBoard } from '../../../core/pool/thread-delay.js';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import { startFleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';

/** One HTTP round trip to a simulated device (its 401), on a connection of its own. */
function roundTrip(address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: address, port: 16992, path: '/wsman', method: 'POST', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end('<x/>');
  });
}

/** Keeps this thread busy for `ms`, as parsing and signing a burst of answers does. */
function burn(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

interface Run {
  /** The lowest and highest limit seen by an operation as it started. */
  lowest: number;
  highest: number;
  peak: number;
}

/** Every device read `rounds` times through the turns, all asked at once; each read is three round trips. */
async function readAll(turns: DeviceTurns, fleet: Fleet, rounds: number, cpuMsPerTrip: number): Promise<Run> {
  const run: Run = { lowest: Infinity, highest: 0, peak: 0 };
  const reads = fleet.devices.flatMap((sim) =>
    Array.from({ length: rounds }, () =>
      turns.run(sim.address, async () => {
        run.lowest = Math.min(run.lowest, turns.limit);
        run.highest = Math.max(run.highest, turns.limit);
        for (let trip = 0; trip < 3; trip++) {
          assert.equal(await roundTrip(sim.address), 401);
          burn(cpuMsPerTrip);
        }
      }),
    ),
  );
  await Promise.all(reads);
  run.peak = turns.peakActive;
  return run;
}

test('the rule: busy threads with waiting answers shrink the limit; waiting answers on idle threads (other work has the CPUs) do not', () => {
  const admission = createAdmission({ maximum: 1024, start: 64, minimum: 8 });
  const step = (delayMs: number, busy: number, pressed = true) => {
    if (pressed) admission.pressed();
    return admission.step({ delayMs, busy });
  };
  assert.equal(step(900, 0.3), 96, 'idle threads: the answers wait for the CPUs, not for our work; grows ×1.5');
  assert.equal(step(900, 1), 67, 'busy threads and answers waiting: shrinks ×0.7');
  assert.equal(step(20, 1), 67, 'busy threads answering promptly again: holds while the spike is among the last three steps');
  assert.equal(step(20, 1), 67, 'still holds');
  assert.equal(step(20, 1), 83, 'then grows, by a quarter of the start a step');
  assert.equal(step(300, 1), 83, 'busy, answers waiting a little: holds');
  assert.equal(step(20, 0.1, false), 83, 'nothing waits for admission: holds');
  for (let i = 0; i < 40; i++) step(2000, 1);
  assert.equal(admission.limit, 8, 'never below the minimum');
  for (let i = 0; i < 40; i++) step(0, 0);
  assert.equal(admission.limit, 1024, 'never above deviceConnections');
  admission.rest();
  assert.equal(admission.limit, 64, 'after a quiet spell, the start again');
});

test('operations that wait on slow devices are admitted far beyond where the gate started, one connection per device', async () => {
  const fleet = await startFleet({ count: 40, base: '127.62.0.1', seed: 'admission-slow', responseDelayMs: [100, 200] });
  const delays = createThreadDelayBoard();
  const turns = createDeviceTurns({ maximum: 1024, start: 4, minimum: 2 }, () => delays.sample());
  try {
    const run = await readAll(turns, fleet, 2, 0);
    assert.ok(run.peak > 16, `more than four times the start ran at once (peak ${run.peak}, limit reached ${run.highest})`);
    for (const sim of fleet.devices) assert.equal(sim.counters().peakOpenConnections, 1, `${sim.address} had one connection at a time`);
  } finally {
    turns.close();
    delays.close();
    await fleet.stop();
  }
});

test('operations that need the CPU are held back: the limit falls below where it started and stays far below the ceiling', async () => {
  const fleet = await startFleet({ count: 40, base: '127.62.1.1', seed: 'admission-cpu' });
  const delays = createThreadDelayBoard();
  const turns = createDeviceTurns({ maximum: 1024, start: 32, minimum: 2 }, () => delays.sample());
  try {
    // Devices that answer at once and 40 ms of this thread's CPU per answer: 32 reads at once keep
    // every answer waiting for the others' work.
    const run = await readAll(turns, fleet, 2, 40);
    assert.ok(run.lowest <= 16, `the limit fell to at most half the start (lowest ${run.lowest})`);
    // It probes upwards again whenever the delay falls, so it moves around the point where answers start to wait.
    assert.ok(run.highest < 128, `it stayed far below the ceiling of 1,024 (highest ${run.highest})`);
    assert.ok(run.peak < 128, `far fewer than the ceiling ran at once (peak ${run.peak})`);
    for (const sim of fleet.devices) assert.equal(sim.counters().peakOpenConnections, 1, `${sim.address} had one connection at a time`);
  } finally {
    turns.close();
    delays.close();
    await fleet.stop();
  }
});

test('after a quiet spell the gate starts again from its start, whatever the last burst taught it', async () => {
  const fleet = await startFleet({ count: 30, base: '127.62.2.1', seed: 'admission-rest', responseDelayMs: [100, 150] });
  const delays = createThreadDelayBoard();
  const turns = createDeviceTurns({ maximum: 1024, start: 4, minimum: 2 }, () => delays.sample());
  try {
    const grown = await readAll(turns, fleet, 1, 0);
    assert.ok(grown.highest > 4, `the limit grew (to ${grown.highest})`);
    await sleep(350);
    assert.equal(turns.limit, 4);
  } finally {
    turns.close();
    delays.close();
    await fleet.stop();
  }
});

test('through the gateway: power reads of slow devices run far beyond the admission start, each device one connection at a time', async () => {
  const kit = await startFleetGateway({
    fleet: { count: 24, base: '127.62.3.1', seed: 'admission-gw', responseDelayMs: [100, 200] },
    range: '127.62.3.1-24',
    plugins: ['rest-api', 'power-mgmt'],
    pluginConfig: { devices: { options: { admission: { start: 2, minimum: 1 } } } },
  });
  try {
    for (const sim of kit.fleet.devices) sim.resetCounters();
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(
        peak,
        kit.fleet.devices.reduce((sum, sim) => sum + sim.state.open.now, 0),
      );
    }, 2);
    try {
      const reads = kit.fleet.devices.flatMap((sim) =>
        Array.from({ length: 3 }, () => kit.gw.request('GET', `/api/power/${kit.devices.get(sim.address)!.id}`, { token: kit.token }).then((res) => res.status)),
      );
      assert.deepEqual(await Promise.all(reads), reads.map(() => 200));
    } finally {
      clearInterval(sampler);
    }
    assert.ok(peak > 4, `devices read at once went beyond twice the start of 2 (peak ${peak})`);
    for (const sim of kit.fleet.devices) assert.equal(sim.counters().peakOpenConnections, 1, `${sim.address} had one connection at a time`);
  } finally {
    await kit.cleanup();
  }
});
