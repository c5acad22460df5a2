import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFleet } from '../../sim/fleet.js';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, type ScanView } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';

const DEVICES = 250;
// A /24: the fleet takes .1 to .250, so 6 addresses (.0, .251 to .255) have nothing behind them.
const SILENT = 256 - DEVICES;

test('a scan cancelled midway reports what it did: scanned = addresses answered for, found = the devices it stored', async () => {
  const fleet = await startFleet({ count: DEVICES, base: '127.116.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'cancel-counts' });
  // Two interrogations at a time: probing ends long before the devices are all read.
  const gw = await startTestGateway({ plugins: ['rest-api'], overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { 'rest-api': { options: { scan: { interrogationConcurrency: 2 } } } } }) });
  try {
    const token = await gw.login();
    await createCredential(gw, token, { username: 'admin', password: 'P@ssw0rd1' });
    const started = await startScan(gw, token, { range: '127.116.0.0/24', concurrency: 256 });
    let running: ScanView = started;
    for (let i = 0; i < 600 && running.status === 'running' && running.found < 20; i++) {
      await sleep(20);
      running = (await (await gw.request('GET', `/api/scan/${started.id}`, { token })).json()) as ScanView;
    }
    const res = await gw.request('POST', `/api/scan/cancel/${started.id}`, { token });
    assert.equal(res.status, 200);
    const cancelled = (await res.json()) as ScanView;
    assert.equal(cancelled.status, 'cancelled');
    assert.ok(cancelled.found >= 20 && cancelled.found < DEVICES, `cancelled midway (found ${cancelled.found} of ${DEVICES})`);
    assert.ok(cancelled.scanned >= cancelled.found, `scanned ${cancelled.scanned} covers the ${cancelled.found} found`);
    assert.ok(
      cancelled.scanned <= cancelled.found + SILENT,
      `scanned ${cancelled.scanned}/${cancelled.total} claims no device address that was not read (found ${cancelled.found}, ${SILENT} silent addresses)`,
    );
    await sleep(500);
    const later = (await (await gw.request('GET', `/api/scan/${started.id}`, { token })).json()) as ScanView;
    assert.deepEqual([later.scanned, later.found], [cancelled.scanned, cancelled.found], 'the counts are final');
    const devices = (await (await gw.request('GET', '/api/devices', { token })).json()) as Array<{ lastScanId: string | null }>;
    assert.equal(devices.filter((d) => d.lastScanId === started.id).length, cancelled.found, 'found is the devices the scan stored');
    assert.equal(devices.length, cancelled.found);
  } finally {
    await gw.cleanup();
    await fleet.stop();
  }
});
