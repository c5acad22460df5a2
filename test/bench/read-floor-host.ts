/**
 * Child process of read-floor.ts: a Piscina pool shaped like the gateway's (its thread count, reads
 * spread over every thread) running read-floor-task.ts, `concurrency` devices at a time. Each `pass`
 * request reads the given addresses and replies with the whole process's CPU (every thread) and the
 * wall time. Started, bundled, with the node flags and allocator settings it is to be measured under.
 */
import { Piscina } from 'piscina';

export type FloorRequest = { type: 'pass'; addresses: string[]; password: string } | { type: 'stop' };
export type FloorReply = { type: 'ready' } | { type: 'pass'; read: number; seconds: number; cpuSeconds: number };

const { task, threads, concurrency } = JSON.parse(process.argv[2] ?? '{}') as { task: string; threads: number; concurrency: number };

const pool = new Piscina({ filename: task, minThreads: threads, maxThreads: threads, concurrentTasksPerWorker: Math.ceil(concurrency / threads), atomics: 'disabled' });

async function pass(addresses: string[], password: string): Promise<FloorReply> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  let read = 0;
  const lane = async () => {
    while (next < addresses.length) if (await pool.run({ address: addresses[next++]!, password })) read++;
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, addresses.length) }, lane));
  const cpu = process.cpuUsage(cpuBefore);
  return { type: 'pass', read, seconds: (performance.now() - started) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

process.on('message', (message: FloorRequest) => {
  if (message.type === 'stop') return void pool.destroy().then(() => process.exit(0));
  pass(message.addresses, message.password).then(
    (reply) => process.send!(reply),
    (error: unknown) => {
      process.stderr.write(`read floor: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
});
process.on('disconnect', () => process.exit(0));
process.send!({ type: 'ready' } satisfies FloorReply);
