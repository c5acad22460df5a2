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
  await sleep(600); // idle: both threads block waiting for work
  pool.threadDelayMs();
  assert.equal(await pool.runFile(BUSY_TASK, { busyMs: 400 }), 400);
  assert.ok(pool.threadDelayMs() >= 300, 'the busy callback kept the thread\'s beats waiting');
  await sleep(600);
  assert.equal(await pool.runFile(BUSY_TASK, { busyMs: 1 }), 1);
  assert.ok(pool.threadDelayMs() < 300, 'the idle spell before the task is not counted as delay');
});
