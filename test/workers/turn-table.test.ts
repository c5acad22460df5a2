/**
 * The turn table every thread shares: the gate's operations (this thread) and the probes of scans and
 * of the online monitor (worker threads) take a device's turn there before they connect. A probe of an
 * address whose turn is held waits for it; the monitor's check of a device held all the while says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWorkerPool, type WorkerPool } from '../../core/pool/worker-pool.js';
import { createTurnTableMemory, TurnTable, TURN_SLOTS } from '../../workers/amt/turn-table.js';
import '../../workers/tasks/task-types.js';
import '../../workers/tasks/presence-sweep-types.js';
import { startFleet, type Fleet } from '../sim/index.js';

let fleet: Fleet;
let pool: WorkerPool;

before(async () => {
  fleet = await startFleet({ count: 2, base: '127.20.30.1', rmcpPort: 0, seed: 'turn-table' });
  pool = createWorkerPool({ threads: 1, concurrentTasksPerWorker: 4, maxQueue: 100, idleTimeoutMs: 5_000 });
});
after(async () => {
  await pool?.close();
  await fleet?.stop();
});

describe('turn table', () => {
  it('gives a key one holder at a time, wakes a waiter when given back, and hashes keys into its slots', async () => {
    const table = new TurnTable(createTurnTableMemory());
    const slot = table.tryTake('10.0.0.1');
    assert.ok(slot >= 0 && slot < TURN_SLOTS);
    assert.equal(table.tryTake('10.0.0.1'), -1, 'held');
    assert.equal(table.taken('10.0.0.1'), true);
    let second = -1;
    const waiting = table.take('10.0.0.1').then((s) => (second = s));
    await sleep(30);
    assert.equal(second, -1, 'still waiting');
    table.give(slot);
    assert.equal(await waiting, slot);
    table.give(second);
    assert.equal(table.taken('10.0.0.1'), false);
    const aborted = new AbortController();
    const held = table.tryTake('10.0.0.2');
    const abandoned = table.take('10.0.0.2', aborted.signal);
    aborted.abort(new Error('gave up'));
    await assert.rejects(abandoned, /gave up/);
    assert.equal(await table.take('10.0.0.2', undefined, 20), -1, 'gave up waiting after 20 ms');
    table.give(held);
    assert.throws(() => new TurnTable(new SharedArrayBuffer(16)), /shared memory/);
  });

  it("a scan's probe of an address whose turn is held connects only once it is given back", async () => {
    const table = new TurnTable(createTurnTableMemory());
    const device = fleet.devices[0]!;
    device.resetCounters();
    const held = table.tryTake(device.address);
    let done = false;
    const probing = pool.run('probe-batch', { addresses: [device.address], ports: { rmcp: 0 }, connectTimeoutMs: 1_000, turns: table.memory }).then((out) => ((done = true), out));
    await sleep(400);
    assert.equal(done, false, 'the probe waits for the turn');
    assert.equal(device.counters().connections + device.counters().peakOpenConnections, 0, 'and has not connected');
    table.give(held);
    const out = await probing;
    assert.deepEqual(out.candidates.map((c) => [c.address, c.openPorts]), [[device.address, [16992]]]);
    assert.equal(table.taken(device.address), false, 'the probe gave the turn back');
  });

  it("the monitor's check of a device whose turn stays held reports it busy rather than silent", async () => {
    const table = new TurnTable(createTurnTableMemory());
    const [busy, free] = fleet.devices as [typeof fleet.devices[0], typeof fleet.devices[0]];
    const held = table.tryTake(busy.address);
    try {
      const out = await pool.run('presence-sweep', {
        targets: [busy, free].map((d) => ({ address: d.address, tcpPorts: [16993, 16992] })),
        rmcpPort: 0,
        connectTimeoutMs: 200,
        turns: table.memory,
      });
      const byAddress = new Map(out.results.map((r) => [r.address, r]));
      assert.deepEqual(byAddress.get(busy.address), { address: busy.address, alive: false, via: null, port: null, busy: true });
      assert.deepEqual(byAddress.get(free.address), { address: free.address, alive: true, via: 'tcp', port: 16992 });
      assert.equal(free.counters().peakOpenConnections, 1, 'its ports were tried one after the other');
    } finally {
      table.give(held);
    }
  });
});
