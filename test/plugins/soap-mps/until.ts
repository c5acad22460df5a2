import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `condition` every 10 ms; throws when it is still false after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await sleep(10);
  }
}
