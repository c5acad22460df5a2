import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HubConnectionState } from '@microsoft/signalr';
import type { TestGateway } from '../../helpers/gateway-harness.js';
import { connectSignalR, hubUrl, playScan, publish, settle, startHubGateway, upgradeStatus, type Received } from './hub-test-kit.js';
import { until } from '../../helpers/poll.js';

/** Checks that `received` holds one whole scan, in the contract's order. */
function assertWholeScan(received: Received[], scanId: string, devices: number): void {
  const mine = received.filter((r) => r.arg.id === scanId || r.arg.scanId === scanId);
  assert.equal(mine[0]?.target, 'ScanStarted', 'the scan starts with ScanStarted');
  assert.equal(mine.at(-1)?.target, 'ScanCompleted', 'the scan ends with ScanCompleted');
  assert.equal(mine.at(-1)?.arg.status, 'completed');
  const progress = mine.filter((r) => r.target === 'ScanProgress').map((r) => r.arg.percent as number);
  assert.ok(progress.length >= 1, 'at least one progress');
  assert.deepEqual(progress, [...progress].sort((a, b) => a - b), 'progress never goes back');
  assert.equal(progress.at(-1), 100, 'the last progress is 100 %');
  assert.equal(progress.filter((p) => p === 100).length, 1, 'exactly one at 100 %');
  assert.equal(mine.at(-2)?.target, 'ScanProgress', 'the 100 % progress comes just before completion');
  const discovered = mine.filter((r) => r.target === 'DeviceDiscovered').map((r) => (r.arg.device as { id: string }).id);
  assert.equal(discovered.length, devices, 'one discovery per device');
  assert.equal(new Set(discovered).size, devices, 'no device twice');
}

describe('scan-hub with the @microsoft/signalr client', () => {
  let gw: TestGateway;
  let admin: string;

  before(async () => {
    // power-mgmt and remote-monitor own the permissions that see their events.
    gw = await startHubGateway({ plugins: ['power-mgmt', 'remote-monitor'], hub: { keepAliveIntervalMs: 200, authRecheckIntervalMs: 200 } });
    admin = await gw.login();
  });
  after(() => gw.cleanup());

  test('a client that negotiates receives every event of a scan in order', async () => {
    const { connection, received } = await connectSignalR(gw.url, admin);
    try {
      const scanId = await playScan(gw, admin, { devices: 12, steps: 8, intervalMs: 15 });
      await until('ScanCompleted', () => received.some((r) => r.target === 'ScanCompleted' && r.arg.id === scanId));
      assertWholeScan(received, scanId, 12);
    } finally {
      await connection.stop();
    }
  });

  test('a client that skips negotiation (WebSockets only) receives every event of a scan in order', async () => {
    const { connection, received } = await connectSignalR(gw.url, admin, { skipNegotiation: true });
    try {
      const scanId = await playScan(gw, admin, { devices: 5, steps: 5, intervalMs: 10 });
      await until('ScanCompleted', () => received.some((r) => r.target === 'ScanCompleted' && r.arg.id === scanId));
      assertWholeScan(received, scanId, 5);
    } finally {
      await connection.stop();
    }
  });

  test('a hub address with a trailing slash works too', async () => {
    const { connection, received } = await connectSignalR(gw.url, admin, { hubPath: '/scanHub/' });
    try {
      await publish(gw, admin, [{ name: 'PowerStateChanged', payload: { deviceId: 'slash', powerState: 2 } }]);
      await until('the event', () => received.some((r) => r.arg.deviceId === 'slash'));
    } finally {
      await connection.stop();
    }
  });

  test('a client without a valid token is refused with 401, with or without negotiation', async () => {
    for (const token of [undefined, 'not-a-real-token']) {
      await assert.rejects(connectSignalR(gw.url, token), /negotiation.*Status code '401'/s);
      await assert.rejects(connectSignalR(gw.url, token, { skipNegotiation: true }), /WebSocket failed to connect/);
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      assert.equal(await upgradeStatus(hubUrl(gw), headers), 401, 'the upgrade the client attempted was refused with 401');
    }
  });

  test('cancelled and failed scans reach clients as ScanCancelled and ScanFailed', async () => {
    const { connection, received } = await connectSignalR(gw.url, admin);
    try {
      const cancelled = await playScan(gw, admin, { devices: 1, steps: 1, intervalMs: 0, outcome: 'cancelled' });
      const failed = await playScan(gw, admin, { devices: 1, steps: 1, intervalMs: 0, outcome: 'failed' });
      await until('ScanFailed', () => received.some((r) => r.target === 'ScanFailed' && r.arg.id === failed));
      await until('ScanCancelled', () => received.some((r) => r.target === 'ScanCancelled' && r.arg.id === cancelled));
      assert.equal(received.find((r) => r.target === 'ScanFailed')?.arg.error, 'fixture failure');
    } finally {
      await connection.stop();
    }
  });

  test('each client receives only the events its permissions allow', async () => {
    const users = {
      scanRunner: await gw.userWith(['scan:run']),
      deviceReader: await gw.userWith(['devices:read']),
      monitorReader: await gw.userWith(['monitor:read']),
      powerReader: await gw.userWith(['power:read']),
      nobody: await gw.userWith([]),
    };
    const clients = Object.fromEntries(await Promise.all(Object.entries(users).map(async ([name, token]) => [name, await connectSignalR(gw.url, token)] as const)));
    try {
      await publish(gw, admin, [
        { name: 'ScanStarted', payload: { id: 'perm-scan', range: '127.50.0.1', status: 'running', total: 1, scanned: 0, found: 0, startedAt: new Date().toISOString() } },
        { name: 'DeviceStatusChanged', payload: { deviceId: 'd1', online: false, lastSeen: null } },
        { name: 'PowerStateChanged', payload: { deviceId: 'd1', powerState: 8 } },
      ]);
      const seen: Record<string, string[]> = {};
      for (const [name, client] of Object.entries(clients)) {
        await settle(client.connection);
        seen[name] = client.received.map((r) => r.target);
      }
      assert.deepEqual(seen, {
        scanRunner: ['ScanStarted'],
        deviceReader: ['ScanStarted', 'DeviceStatusChanged'],
        monitorReader: ['DeviceStatusChanged'],
        powerReader: ['PowerStateChanged'],
        nobody: [],
      });
    } finally {
      await Promise.all(Object.values(clients).map((c) => c.connection.stop()));
    }
  });

  test('SubscribeScan narrows a connection to the scans it names, UnsubscribeScan widens it again', async () => {
    const { connection, received } = await connectSignalR(gw.url, admin);
    const progress = (scanId: string, percent: number) => ({ name: 'ScanProgress', payload: { scanId, scanned: percent, total: 100, found: 0, percent } });
    try {
      await connection.invoke('SubscribeScan', 'scan-a');
      await publish(gw, admin, [progress('scan-a', 100), progress('scan-b', 100), { name: 'DeviceStatusChanged', payload: { deviceId: 'd2', online: true, lastSeen: new Date().toISOString() } }]);
      await settle(connection);
      assert.deepEqual(
        received.map((r) => [r.target, r.arg.scanId ?? r.arg.deviceId]),
        [
          ['ScanProgress', 'scan-a'],
          ['DeviceStatusChanged', 'd2'],
        ],
        'only scan-a of the scan events, and every non-scan event',
      );
      await connection.invoke('UnsubscribeScan', 'scan-a');
      received.length = 0;
      await publish(gw, admin, [progress('scan-c', 100)]);
      await settle(connection);
      assert.deepEqual(received.map((r) => r.arg.scanId), ['scan-c'], 'with no subscription left, every scan again');
    } finally {
      await connection.stop();
    }
  });

  test('a bad hub invocation is answered with an error and leaves the connection open', async () => {
    const { connection } = await connectSignalR(gw.url, admin);
    try {
      await assert.rejects(connection.invoke('SubscribeScan'), /takes one argument/);
      await assert.rejects(connection.invoke('LaunchMissiles', 1), /Unknown hub method 'LaunchMissiles'/);
      assert.equal(await connection.invoke('SubscribeScan', 'x'), null);
      assert.equal(connection.state, HubConnectionState.Connected);
    } finally {
      await connection.stop();
    }
  });

  test('a connection whose token is revoked is closed, without reconnecting; changed permissions apply to a live connection', async () => {
    const username = `recheck-${Date.now()}`;
    const userToken = await gw.userWith(['devices:read'], username);
    const watcher = await gw.userWith(['devices:read']);
    const revoked = await connectSignalR(gw.url, userToken, { reconnect: { nextRetryDelayInMilliseconds: () => 0 } });
    const narrowed = await connectSignalR(gw.url, watcher);
    let closedWith: Error | undefined;
    revoked.connection.onclose((err) => (closedWith = err));
    try {
      assert.equal((await gw.request('POST', '/api/auth/logout', { token: userToken })).status, 204);
      await until('the revoked connection to close', () => closedWith !== undefined);
      assert.match(String(closedWith?.message), /Unauthorized/);
      assert.equal(revoked.connection.state, HubConnectionState.Disconnected, 'a Close without allowReconnect ends the connection for good');

      const watcherName = ((await (await gw.request('GET', '/api/auth/me', { token: watcher })).json()) as { username: string }).username;
      assert.equal((await gw.request('PUT', `/api/users/${watcherName}`, { token: admin, body: { permissions: ['power:read'] } })).status, 200);
      // The hub reads permissions again at its next token check: wait until power:read shows.
      for (let round = 0; round < 100 && !narrowed.received.some((r) => r.target === 'PowerStateChanged'); round++) {
        await publish(gw, admin, [{ name: 'PowerStateChanged', payload: { deviceId: 'probe', powerState: 2 } }]);
        await settle(narrowed.connection);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      narrowed.received.length = 0;
      await publish(gw, admin, [
        { name: 'DeviceStatusChanged', payload: { deviceId: 'd3', online: true, lastSeen: null } },
        { name: 'PowerStateChanged', payload: { deviceId: 'd3', powerState: 2 } },
      ]);
      await settle(narrowed.connection);
      assert.deepEqual(narrowed.received.map((r) => r.target), ['PowerStateChanged'], 'devices:read taken away, power:read given');
    } finally {
      await Promise.all([revoked.connection.stop(), narrowed.connection.stop()]);
    }
  });

  test('server keep-alive pings hold a quiet connection open past the client\'s server timeout', async () => {
    const { connection } = await connectSignalR(gw.url, admin, { serverTimeoutMs: 1_000 });
    let closedWith: Error | undefined | null = null;
    connection.onclose((err) => (closedWith = err));
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.equal(closedWith, null, 'the client never timed out');
      assert.equal(connection.state, HubConnectionState.Connected);
    } finally {
      await connection.stop();
    }
  });
});
