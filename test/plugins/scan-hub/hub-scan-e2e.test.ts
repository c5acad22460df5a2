import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet } from '../../sim/fleet.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import { assertHubShapes, connectSignalR, startHubGateway, type Received } from './hub-test-kit.js';
import { until } from '../../helpers/poll.js';

const DEVICES = 30;
// 64 addresses, 30 of them simulated AMT devices.
const RANGE = '127.50.0.0/26';

test('SignalR clients see a real scan of the simulator as it runs: started, progress to 100 %, one discovery per device, completed, each event in its documented shape', { timeout: 60_000 }, async () => {
  const fleet = await startFleet({ count: DEVICES, base: '127.50.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'hub-e2e' });
  const gw = await startHubGateway({ plugins: ['rest-api'], overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { 'rest-api': { enable: true, options: { scan: { rmcpWindowMs: 300 } } } } }) });
  try {
    const token = await gw.login();
    await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
    const negotiated = await connectSignalR(gw.url, token);
    const direct = await connectSignalR(gw.url, token, { skipNegotiation: true });

    const scan = await startScan(gw, token, { range: RANGE, timeoutMs: 1000 });
    const done = (received: Received[]) => received.some((r) => r.target === 'ScanCompleted' && r.arg.id === scan.id);
    await until('both clients to see ScanCompleted', () => done(negotiated.received) && done(direct.received), 50_000);

    const sequence = negotiated.received.filter((r) => r.arg.id === scan.id || r.arg.scanId === scan.id);
    assert.equal(sequence[0]?.target, 'ScanStarted');
    assert.equal(sequence[0]?.arg.total, 64);
    const final = sequence.at(-1)!;
    assert.equal(final.target, 'ScanCompleted');
    assert.equal(final.arg.found, DEVICES);
    const progress = sequence.filter((r) => r.target === 'ScanProgress').map((r) => r.arg);
    assert.ok(progress.length >= 1);
    assert.deepEqual(progress.map((p) => p.scanned), [...progress.map((p) => p.scanned as number)].sort((a, b) => a - b), 'progress only moves forward');
    assert.equal(progress.at(-1)?.percent, 100);
    assert.equal(progress.filter((p) => p.percent === 100).length, 1, 'exactly one at 100 %');
    assert.equal(progress.at(-1)?.scanned, 64);
    const addresses = sequence.filter((r) => r.target === 'DeviceDiscovered').map((r) => (r.arg.device as { ipAddress: string }).ipAddress);
    assert.deepEqual([...addresses].sort(), fleet.devices.map((d) => d.address).sort(), 'one discovery per simulated device');
    assert.ok(sequence.findIndex((r) => r.target === 'ScanCompleted') > sequence.findLastIndex((r) => r.target === 'DeviceDiscovered'), 'completion after every discovery');

    const strip = (received: Received[]) => received.filter((r) => r.target !== 'ScanProgress').map((r) => [r.target, r.arg.id ?? (r.arg.device as { id?: string } | undefined)?.id]);
    assert.deepEqual(strip(direct.received), strip(negotiated.received), 'a client that skipped negotiation saw the same events in the same order');
    await assertHubShapes(gw.url, negotiated.received);
    await Promise.all([negotiated.connection.stop(), direct.connection.stop()]);
  } finally {
    await gw.cleanup();
    await fleet.stop();
  }
});
