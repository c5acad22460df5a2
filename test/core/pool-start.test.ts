/** The worker threads boot once the gateway serves, before any device task asks for them. */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestGateway, type TestGateway } from '../helpers/gateway-harness.js';

const osThreads = () => readdirSync('/proc/self/task').length;

describe('worker pool start', () => {
  let gw: TestGateway | undefined;
  after(() => gw?.cleanup());

  it('starts the worker threads a moment after the gateway serves, with no task run', async (t) => {
    if (process.platform !== 'linux') return t.skip('counts threads in /proc');
    gw = await startTestGateway({ overrides: { workers: { threads: 2 } } });
    const serving = osThreads();
    let now = serving;
    for (let waited = 0; waited < 10_000 && now < serving + 2; waited += 100) {
      await sleep(100);
      now = osThreads();
    }
    assert.ok(now >= serving + 2, `threads while serving: ${serving}, then ${now}; two worker threads expected`);
  });
});
