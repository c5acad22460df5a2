import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet } from '../../sim/fleet.js';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';

// The batch collects pongs this long after its last ping; devices that never pong must not wait for it.
const RMCP_WINDOW_MS = 4000;

test('a device is read as soon as its ports answered, before its batch stops waiting for pongs, and recorded with what the probes found', async () => {
  // rmcpPort 0: these devices never answer the gateway's pings, so their batch waits out its whole window.
  const fleet = await startFleet({ count: 4, base: '127.37.0.1', rmcpPort: 0, seed: 'early-reads' });
  const gw = await startTestGateway({
    plugins: ['rest-api'],
    overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { 'rest-api': { options: { scan: { rmcpWindowMs: RMCP_WINDOW_MS } } } } }),
  });
  try {
    const token = await gw.login();
    await createCredential(gw, token, { username: 'admin', password: 'P@ssw0rd1' });
    const { id } = await startScan(gw, token, { range: '127.37.0.0/24', concurrency: 64 });
    const requested = () => fleet.devices.filter((d) => d.state.counters.requests > 0).length;
    const deadline = Date.now() + RMCP_WINDOW_MS + 10_000;
    while (requested() < fleet.devices.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const whileReading = (await (await gw.request('GET', `/api/scan/${id}`, { token })).json()) as { scanned: number; status: string };
    assert.equal(requested(), fleet.devices.length, 'every device was read');
    assert.equal(whileReading.status, 'running');
    assert.equal(whileReading.scanned, 0, 'every device had its read under way while its batch still waited for pongs (no address of it was finished)');

    const scan = await waitForScan(gw, token, id);
    assert.equal(scan.status, 'completed');
    assert.equal(scan.found, 4);
    const devices = (await (await gw.request('GET', '/api/devices', { token })).json()) as Array<{ ipAddress: string; openPorts: number[]; authStatus: string }>;
    assert.equal(devices.length, 4);
    for (const device of devices) {
      assert.deepEqual(device.openPorts, [16992], `${device.ipAddress}: the port that answered, and no RMCP port (it never ponged)`);
      assert.equal(device.authStatus, 'ok');
    }
    assert.ok(!devices.some((d) => d.openPorts.includes(SIM_RMCP_PORT)));
    assert.equal(Math.max(...fleet.devices.map((d) => d.counters().peakOpenConnections)), 1, 'one connection at a time to each device, probes included');
  } finally {
    await gw.cleanup();
    await fleet.stop();
  }
});
