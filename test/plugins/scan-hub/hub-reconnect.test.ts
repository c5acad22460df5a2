import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HubConnectionState } from '@microsoft/signalr';
import type { TestGateway } from '../../helpers/gateway-harness.js';
import { connectSignalR, hubUrl, publish, RawHubClient, startHubGateway } from './hub-test-kit.js';
import { until } from '../../helpers/poll.js';

test('at shutdown the hub sends Close with allowReconnect, and the SignalR client reconnects to the restarted gateway by itself', { timeout: 30_000 }, async () => {
  // power-mgmt owns the permissions that see PowerStateChanged.
  const first = await startHubGateway({ plugins: ['power-mgmt'] });
  let second: TestGateway | undefined;
  const token = await first.login();
  const port = Number(new URL(first.url).port);
  const { connection, received } = await connectSignalR(first.url, token, {
    reconnect: { nextRetryDelayInMilliseconds: (retry) => (retry.elapsedMilliseconds < 20_000 ? 100 : null) },
  });
  const raw = await RawHubClient.connect(hubUrl(first, { access_token: token }));
  const reconnecting: Array<Error | undefined> = [];
  let reconnected = false;
  connection.onreconnecting((err) => reconnecting.push(err));
  connection.onreconnected(() => (reconnected = true));
  try {
    await first.stop();
    assert.deepEqual(raw.records.at(-1), { type: 7, allowReconnect: true }, 'the last message before the socket closed');
    assert.equal(await raw.closed, 1000);
    await until('the client to start reconnecting', () => reconnecting.length > 0);
    assert.equal(connection.state, HubConnectionState.Reconnecting);

    second = await startHubGateway({ plugins: ['power-mgmt'], dataDir: first.dataDir, masterKey: first.masterKey, port });
    await until('the client to reconnect', () => reconnected, 20_000);
    assert.equal(connection.state, HubConnectionState.Connected);
    await publish(second, token, [{ name: 'PowerStateChanged', payload: { deviceId: 'after-restart', powerState: 2 } }]);
    await until('an event from the restarted gateway', () => received.some((r) => r.arg.deviceId === 'after-restart'));
  } finally {
    await connection.stop();
    raw.close();
    await second?.stop();
    await first.cleanup();
  }
});
