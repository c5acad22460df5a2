import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEventBus } from '../../core/events/event-bus.js';
import { createLogger } from '../../core/log/logger.js';

test('publishAwaited waits for listeners that return a promise; a rejecting one is logged, not thrown', async () => {
  const lines: string[] = [];
  const bus = createEventBus(createLogger({ level: 'info', write: (line) => lines.push(line) }));
  const done: string[] = [];
  bus.subscribe('SignInAttempted', async (e) => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    done.push(`slow ${e.user}`);
  });
  bus.subscribe('SignInAttempted', (e) => void done.push(`sync ${e.user}`));
  bus.subscribe('SignInAttempted', () => Promise.reject(new Error('disk full')));
  await bus.publishAwaited('SignInAttempted', { user: 'u1', address: '127.0.0.1', outcome: 'success', door: 'rest' });
  assert.deepEqual(done, ['sync u1', 'slow u1']);
  assert.equal(lines.filter((l) => l.includes('event listener failed') && l.includes('disk full')).length, 1);
  bus.publish('SignInAttempted', { user: 'u2', address: '127.0.0.1', outcome: 'failure', door: 'rest' });
  assert.deepEqual(done, ['sync u1', 'slow u1', 'sync u2'], 'publish does not wait');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(lines.filter((l) => l.includes('disk full')).length, 2, 'a rejection after publish is caught and logged too');
});
