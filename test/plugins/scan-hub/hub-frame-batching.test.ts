import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestGateway } from '../../helpers/gateway-harness.js';
import { connectSignalR, hubUrl, playScan, RawHubClient, startHubGateway } from './hub-test-kit.js';
import { until } from '../../helpers/poll.js';

// One discovery per step, each step its own event-loop turn (a timer apart), as real scans publish them.
const DEVICES = 60;
const ONE_PER_TURN = { devices: DEVICES, steps: DEVICES, intervalMs: 1 };
const addresses = Array.from({ length: DEVICES }, (_, i) => `127.50.0.${i + 1}`);

describe('scan-hub writes what gathers between flushes as one frame per client', () => {
  let gw: TestGateway;
  let token: string;

  before(async () => {
    // A long flush interval, so that a loaded machine stretching the publisher's timers still batches.
    gw = await startHubGateway({ hub: { flushIntervalMs: 250 } });
    token = await gw.login();
  });
  after(() => gw.cleanup());

  test('a raw client receives discoveries published in separate turns several to a frame, every record whole and in order', async () => {
    const client = await RawHubClient.connect(hubUrl(gw, { access_token: token }));
    try {
      client.recordsPerFrame.length = 0;
      const scanId = await playScan(gw, token, ONE_PER_TURN);
      await until('ScanCompleted', () => client.records.some((r) => r.target === 'ScanCompleted'));

      const mine = client.records.filter((r) => r.type === 1) as Array<{ target: string; arguments: Array<Record<string, unknown>> }>;
      assert.equal(mine[0]?.target, 'ScanStarted');
      assert.equal(mine.at(-1)?.target, 'ScanCompleted');
      assert.ok(mine.every((r) => r.arguments[0]!.scanId === scanId || r.arguments[0]!.id === scanId), 'only this scan');
      const discovered = mine.filter((r) => r.target === 'DeviceDiscovered').map((r) => (r.arguments[0]!.device as { ipAddress: string }).ipAddress);
      assert.deepEqual(discovered, addresses, 'every discovery, in order');
      const percents = mine.filter((r) => r.target === 'ScanProgress').map((r) => r.arguments[0]!.percent as number);
      assert.deepEqual(percents, [...percents].sort((a, b) => a - b), 'progress never goes back');
      assert.equal(percents.at(-1), 100);

      const frames = client.recordsPerFrame.filter((n) => n > 0);
      assert.ok(Math.max(...frames) > 1, `some frame carries several records (records per frame: ${frames.join(' ')})`);
      assert.ok(frames.length <= client.records.length / 3, `${client.records.length} records came in ${frames.length} frames`);
    } finally {
      client.close();
    }
  });

  test('the @microsoft/signalr client reads batched frames: every discovery arrives, in order, with the whole scan', async () => {
    const { connection, received } = await connectSignalR(gw.url, token);
    try {
      const scanId = await playScan(gw, token, ONE_PER_TURN);
      await until('ScanCompleted', () => received.some((r) => r.target === 'ScanCompleted' && r.arg.id === scanId));
      const mine = received.filter((r) => r.arg.id === scanId || r.arg.scanId === scanId);
      assert.equal(mine[0]?.target, 'ScanStarted');
      assert.equal(mine.at(-2)?.target, 'ScanProgress');
      assert.equal(mine.at(-2)?.arg.percent, 100);
      assert.equal(mine.at(-1)?.target, 'ScanCompleted');
      const discovered = mine.filter((r) => r.target === 'DeviceDiscovered').map((r) => (r.arg.device as { ipAddress: string }).ipAddress);
      assert.deepEqual(discovered, addresses);
    } finally {
      await connection.stop();
    }
  });
});
