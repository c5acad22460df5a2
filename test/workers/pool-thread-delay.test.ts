/**
 * The pool reports how long its worker threads kept ready callbacks waiting while they ran tasks
 * (the signal the device gate admits reads by), and an idle worker, blocked waiting for work, does
 * not count as delayed.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWorkerPool, type WorkerPool } from '../../core/pool/worker-pool.js';

const BUSY_TASK = new URL('./fixtures/busy-task.mjs', import.meta.url).href;
let pool: WorkerPool;

before(() => {
  pool = createWorkerPool({ threads: 2, concurrentTasksPerWorker: 4, maxQueue: 100, idleTimeoutMs: 5_000 });
});
after(async () => {
  await pool?.close();
});

it('a worker thread busy in one long callback shows that delay; idle threads afterwards show none', async () => {
  assert.equal(await pool.runFile(BUSY_TASK, { busyMs: 1 }), 1, 'the threads are up');
  // The threads load the built-in tasks once started (compiling them, under tsx): wait for quiet.
  let quietInARow = 0;
  for (let i = 0; i < 150 && quietInARow < 5; i++) {
    await sleep(200);
    quietInARow = pool.threadLoad().busy < 0.5 ? quietInARow + 1 : 0;
  }
  assert.equal(quietInARow, 5, 'idle threads read idle, not busy (they wait for work in their event loop)');
  await sleep(600);
  pool.threadLoad();
  assert.equal(await pool.runFile(BUSY_TASK, { busyMs: 400 }), 400);
  const busy = pool.threadLoad();
  assert.ok(busy.delayMs >= 300, 'the busy callback kept the thread\'s beats waiting');
  assert.ok(busy.busy > 0.5, 'and the thread was busy most of the time');
  await sleep(600);
  assert.equal(await pool.runFile(BUSY_TASK, { busyMs: 1 }), 1);
  const idle = pool.threadLoad();
  assert.ok(idle.delayMs < 300, 'the idle spell before the task is not counted as delay');
  assert.ok(idle.busy < 0.5, 'nor as work');
});
