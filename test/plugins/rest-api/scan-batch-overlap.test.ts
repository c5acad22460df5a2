import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, startScan, waitForScan } from '../../helpers/scan-helpers.js';

const RECORDER = fileURLToPath(new URL('../../fixtures/plugins/event-recorder/', import.meta.url));
const BATCH = 256;

interface Progress {
  event: string;
  payload: { scanId?: string; scanned?: number; probesDecided?: number };
}

test("a scan's next batch starts probing while the one before only waits out its pong window", async () => {
  // One batch at a time (concurrency 32), two batches, a long pong window: nothing answers in 127.38.0.0/23,
  // so each batch waits out its whole window after its probes and pings.
  const gw = await startTestGateway({
    plugins: ['rest-api'],
    overrides: {
      ...SIM_AMT_SETTINGS,
      plugins: {
        'rest-api': { options: { scan: { batchSize: BATCH, rmcpWindowMs: 2000 } } },
        'event-recorder': { enable: true, path: RECORDER, options: { events: ['ScanProgress'] } },
      },
    },
  });
  try {
    const token = await gw.login();
    await createCredential(gw, token, { username: 'admin', password: 'P@ssw0rd1' });
    const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: '127.38.0.0/23', concurrency: 32 })).id);
    assert.equal(scan.status, 'completed');
    assert.equal(scan.scanned, 2 * BATCH);
    const progress = ((await (await gw.request('GET', '/api/event-recorder/events', { token })).json()) as Progress[]).filter((e) => e.payload.scanId === scan.id);
    // `scanned` grows only when a batch ends (its window closed); probes of the second batch decided before that ran alongside the first's window.
    const overlapped = progress.filter((e) => e.payload.scanned === 0 && (e.payload.probesDecided ?? 0) > 2 * BATCH);
    assert.ok(overlapped.length > 0, `the second batch probed before the first one ended: ${JSON.stringify(progress.map((e) => [e.payload.scanned, e.payload.probesDecided]))}`);
  } finally {
    await gw.cleanup();
  }
});
