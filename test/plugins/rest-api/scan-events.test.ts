import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startFleet } from '../../sim/fleet.js';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';

const RECORDER = fileURLToPath(new URL('../../fixtures/plugins/event-recorder/', import.meta.url));
const SCAN_EVENTS = ['ScanStarted', 'ScanProgress', 'DeviceDiscovered', 'ScanCompleted', 'ScanCancelled', 'ScanFailed'];

interface Recorded {
  event: string;
  at: number;
  payload: { scanId?: string; id?: string; percent?: number; scanned?: number; total?: number; found?: number; device?: { ipAddress: string }; status?: string };
}

test('a scan publishes started, throttled progress ending at 100 %, one discovery per device, then completed', async () => {
  const fleet = await startFleet({ count: 25, base: '127.36.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'events' });
  const gw = await startTestGateway({
    plugins: ['rest-api'],
    overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { 'event-recorder': { enable: true, path: RECORDER, options: { events: SCAN_EVENTS } } } }),
  });
  try {
    const token = await gw.login();
    await createCredential(gw, token, { username: 'admin', password: 'P@ssw0rd1' });
    const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: '127.36.0.0/22', concurrency: 64 })).id);
    assert.equal(scan.status, 'completed');
    const events = ((await (await gw.request('GET', '/api/event-recorder/events', { token })).json()) as Recorded[]).filter(
      (e) => (e.payload.scanId ?? e.payload.id) === scan.id,
    );
    assert.equal(events[0]!.event, 'ScanStarted');
    assert.equal(events[0]!.payload.status, 'running');
    assert.equal(events.at(-1)!.event, 'ScanCompleted');
    assert.equal(events.at(-1)!.payload.found, 25);
    const discovered = events.filter((e) => e.event === 'DeviceDiscovered').map((e) => e.payload.device!.ipAddress);
    assert.equal(discovered.length, 25);
    assert.deepEqual([...new Set(discovered)].sort(), fleet.devices.map((d) => d.address).sort());
    const progress = events.filter((e) => e.event === 'ScanProgress');
    assert.ok(progress.length >= 2);
    assert.deepEqual(progress.at(-1)!.payload, { scanId: scan.id, scanned: 1024, total: 1024, found: 25, percent: 100, probesDecided: 2048, probesTotal: 2048, etaSeconds: 0 });
    assert.equal(progress.filter((p) => p.payload.percent === 100).length, 1, 'exactly one at 100 %');
    const percents = progress.map((p) => p.payload.percent!);
    assert.deepEqual([...percents].sort((a, b) => a - b), percents, 'percent never goes back');
    for (let i = 10; i < progress.length; i++) {
      assert.ok(progress[i]!.at - progress[i - 10]!.at >= 900, 'at most 10 progress events per second');
    }
    const lastProgress = events.findIndex((e) => e.event === 'ScanProgress' && e.payload.percent === 100);
    assert.ok(events.slice(lastProgress + 1).every((e) => e.event === 'ScanCompleted'), 'nothing but completion after 100 %');
  } finally {
    await gw.cleanup();
    await fleet.stop();
  }
});
