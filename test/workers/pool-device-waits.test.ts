/**
 * A device read waiting on its device takes none of the pool's CPU slots: with one thread and one
 * slot, three slow reads wait on their devices together and a probe task still runs meanwhile.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWorkerPool, type WorkerPool } from '../../core/pool/worker-pool.js';
import '../../workers/tasks/task-types.js';
import { startFleet, type Fleet } from '../sim/index.js';
import { ADMIN } from './helpers.js';

let fleet: Fleet;
let pool: WorkerPool;

before(async () => {
  // Five round trips at 1.5 s each: the reads are still waiting when the probe runs.
  fleet = await startFleet({ count: 3, base: '127.20.14.1', rmcpPort: 0, seed: 'waits', responseDelayMs: [1500, 1500] });
  pool = createWorkerPool({ threads: 1, concurrentTasksPerWorker: 1, maxQueue: 100, idleTimeoutMs: 5_000 });
});
after(async () => {
  await pool?.close();
  await fleet?.stop();
});

it('device reads wait on their devices beside each other and beside CPU work, whatever concurrentTasksPerWorker says', async () => {
  let finished = 0;
  const timeouts = { connectMs: 5_000, firstByteMs: 10_000, totalMs: 10_000 };
  const reads = fleet.devices.map((d) =>
    pool.run('interrogate', { address: d.address, tls: false, credential: ADMIN, timeouts }, { waitsOnIo: true }).then((out) => {
      finished++;
      return out;
    }),
  );
  for (let i = 0; i < 800 && !fleet.devices.every((d) => d.counters().connections >= 1); i++) await sleep(25);
  assert.ok(fleet.devices.every((d) => d.counters().connections >= 1), 'every device was being read at once');
  assert.equal(finished, 0);
  const probe = await pool.run('probe-batch', { addresses: ['127.20.15.1'], ports: { rmcp: 0 }, connectTimeoutMs: 500 });
  assert.equal(probe.probed, 1);
  assert.equal(finished, 0, 'the probe ran while the reads waited on their devices');
  for (const out of await Promise.all(reads)) assert.equal(out.authStatus, 'ok');
});
