import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectSignalR, hubUrl, playScan, RawHubClient, startHubGateway } from './hub-test-kit.js';
import { until } from '../../helpers/poll.js';

const DEVICES = 4000;
const PADDING = 2000;

test('a client that stops reading during a scan neither slows the scan nor other clients, and is closed once over its bound', { timeout: 60_000 }, async (t) => {
  // closeGraceMs is long so that the stalled client, once it reads again, still finds its Close message.
  const gw = await startHubGateway({ hub: { socketHighWaterBytes: 16_384, maxQueuedBytes: 524_288, maxQueuedMessages: 1000, closeGraceMs: 30_000 } });
  try {
    const token = await gw.login();
    const healthy = await connectSignalR(gw.url, token);
    const scanDuration = (scanId: string) => {
      const done = healthy.received.find((r) => r.target === 'ScanCompleted' && r.arg.id === scanId)!.arg;
      return Date.parse(String(done.finishedAt)) - Date.parse(String(done.startedAt));
    };
    // Steps of 20 discoveries (40 kB): each burst the publisher sends in one go stays well inside a keeping-up client's bound.
    const request = { devices: DEVICES, steps: 200, intervalMs: 2, padding: PADDING };
    const baseline = await playScan(gw, token, request);
    await until('the baseline scan', () => healthy.received.some((r) => r.target === 'ScanCompleted' && r.arg.id === baseline), 45_000);
    const baselineMs = scanDuration(baseline);
    healthy.received.length = 0;

    const stalled = await RawHubClient.connect(hubUrl(gw, { access_token: token }));
    stalled.pause();
    const heapBefore = process.memoryUsage().heapUsed;

    const started = performance.now();
    const scanId = await playScan(gw, token, request);
    await until('the healthy client to see ScanCompleted', () => healthy.received.some((r) => r.target === 'ScanCompleted' && r.arg.id === scanId), 45_000);
    const elapsed = performance.now() - started;
    const heapAfter = process.memoryUsage().heapUsed;

    assert.equal(stalled.records.length, 0, 'the stalled client read nothing while the scan ran and completed');
    const discovered = healthy.received.filter((r) => r.target === 'DeviceDiscovered');
    assert.equal(discovered.length, DEVICES, 'the healthy client got every discovery');
    assert.deepEqual(
      discovered.map((r) => (r.arg.device as { ipAddress: string }).ipAddress),
      Array.from({ length: DEVICES }, (_, i) => `127.50.${Math.floor(i / 250)}.${(i % 250) + 1}`),
      'in order',
    );
    assert.equal(healthy.received.filter((r) => r.target === 'ScanProgress').at(-1)?.arg.percent, 100);

    stalled.resume();
    await stalled.closed;
    const close = stalled.records.at(-1);
    assert.equal(close?.type, 7, 'the stalled client finds a Close message at the end of what it was sent');
    assert.match(String(close?.error), /send buffer is full/);
    assert.equal(close?.allowReconnect, true);
    const stalledDiscoveries = stalled.records.filter((r) => r.type === 1 && r.target === 'DeviceDiscovered').length;
    assert.ok(stalledDiscoveries < DEVICES, 'the stalled client was cut off, not buffered for');
    t.diagnostic(
      `scan of ${DEVICES} discoveries (${((DEVICES * PADDING) / 1e6).toFixed(1)} MB): publisher-side duration ${scanDuration(scanId)} ms with a stalled client, ` +
        `${baselineMs} ms without; healthy client had it all after ${elapsed.toFixed(0)} ms; the stalled client got ${stalledDiscoveries} ` +
        `discoveries before its Close; heap delta ${((heapAfter - heapBefore) / 1e6).toFixed(1)} MB (the healthy client's copies included)`,
    );
    await healthy.connection.stop();
  } finally {
    await gw.cleanup();
  }
});
