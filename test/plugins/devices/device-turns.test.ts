/**
 * Device turns: one connection at a time to any device, whichever paths want it, and operations that
 * wait on devices bounded by sockets. Proved against the simulator, which counts the connections a
 * device has open at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDeviceTurns } from '../../../plugins/devices/gate/device-turns.js';
import { startFleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';

/** A job that stays open until released, so that the test decides when it ends. */
function held() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('device turns run one operation per device at a time and at most `limit` in all', async () => {
  const turns = createDeviceTurns({ maximum: 2, start: 2, minimum: 1 }, () => ({ delayMs: 0, busy: 0 }));
  const running = new Set<string>();
  const jobs = new Map<string, ReturnType<typeof held>>();
  const start = (key: string, name: string) =>
    turns.run(key, async () => {
      running.add(name);
      const job = held();
      jobs.set(name, job);
      await job.done;
      running.delete(name);
      return name;
    });
  const a1 = start('10.0.0.1', 'a1');
  const a2 = start('10.0.0.1', 'a2');
  const b1 = start('10.0.0.2', 'b1');
  const c1 = start('10.0.0.3', 'c1');
  await settle();
  assert.deepEqual([...running].sort(), ['a1', 'b1'], 'a2 waits for its device, c1 for a socket');
  assert.equal(turns.active, 2);
  assert.equal(turns.waiting, 2);
  jobs.get('a1')!.release();
  assert.equal(await a1, 'a1');
  await settle();
  assert.deepEqual([...running].sort(), ['b1', 'c1'], 'the freed socket goes to the first waiting for one; a2 still waits for a socket');
  jobs.get('b1')!.release();
  await b1;
  await settle();
  assert.deepEqual([...running].sort(), ['a2', 'c1']);
  jobs.get('a2')!.release();
  jobs.get('c1')!.release();
  assert.deepEqual(await Promise.all([a2, c1]), ['a2', 'c1']);
  assert.equal(turns.active, 0);
  assert.equal(turns.waiting, 0);
});

test('a failing operation gives back its device and its socket', async () => {
  const turns = createDeviceTurns({ maximum: 1, start: 1, minimum: 1 }, () => ({ delayMs: 0, busy: 0 }));
  await assert.rejects(turns.run('10.0.0.1', () => Promise.reject(new Error('device gone'))), /device gone/);
  assert.equal(await turns.run('10.0.0.1', async () => 'next'), 'next');
  assert.equal(turns.active, 0);
});

test('no device ever sees two connections from the gateway at once: a scan of slow devices, then many power reads of each at the same time', async () => {
  const kit = await startFleetGateway({
    fleet: { count: 6, base: '127.61.7.1', seed: 'turns', responseDelayMs: [30, 90] },
    range: '127.61.7.1-6',
    plugins: ['rest-api', 'power-mgmt'],
  });
  try {
    for (const sim of kit.fleet.devices) assert.equal(sim.counters().peakOpenConnections, 1, `${sim.address} during the scan`);
    for (const sim of kit.fleet.devices) sim.resetCounters();
    const reads = kit.fleet.devices.flatMap((sim) =>
      Array.from({ length: 4 }, () => kit.gw.request('GET', `/api/power/${kit.devices.get(sim.address)!.id}`, { token: kit.token }).then((res) => res.status)),
    );
    assert.deepEqual(await Promise.all(reads), reads.map(() => 200));
    for (const sim of kit.fleet.devices) {
      assert.ok(sim.counters().requests >= 4, `${sim.address} was read four times`);
      assert.equal(sim.counters().peakOpenConnections, 1, `${sim.address} had one connection at a time`);
    }
  } finally {
    await kit.cleanup();
  }
});
