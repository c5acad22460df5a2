import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestGateway } from '../../helpers/gateway-harness.js';
import { hubUrl, publish, RawHubClient, RS, startHubGateway, upgradeStatus } from './hub-test-kit.js';
import { until } from '../../helpers/poll.js';

const HANDSHAKE = `{"protocol":"json","version":1}${RS}`;
const invocation = (id: string | undefined, target: string, ...args: unknown[]) =>
  JSON.stringify({ type: 1, ...(id === undefined ? {} : { invocationId: id }), target, arguments: args }) + RS;

// The tests share one gateway and run at once: each uses its own connections and looks only at its own records.
describe('scan-hub protocol edges, with a raw WebSocket client', { concurrency: true }, () => {
  let gw: TestGateway;
  let token: string;
  const clients: RawHubClient[] = [];
  const connect = async (query: Record<string, string> = {}) => {
    const client = await RawHubClient.connect(hubUrl(gw, { access_token: token, ...query }));
    clients.push(client);
    return client;
  };
  const open = async () => {
    const client = await RawHubClient.open(hubUrl(gw, { access_token: token }));
    clients.push(client);
    return client;
  };

  before(async () => {
    gw = await startHubGateway({ hub: { keepAliveIntervalMs: 150, clientTimeoutMs: 1_500, handshakeTimeoutMs: 400, maxMessageBytes: 2048 } });
    token = await gw.login();
  });
  after(async () => {
    for (const client of clients) client.close();
    await gw.cleanup();
  });

  test('a handshake split across frames is answered with {}', async () => {
    const client = await open();
    client.send('{"protocol":');
    client.send('"json","ver');
    client.send(`sion":1}${RS}`);
    await client.waitForRecords(1);
    assert.deepEqual(client.records[0], {});
  });

  test('a handshake and messages batched in one frame are each handled, in order', async () => {
    const client = await open();
    client.send(HANDSHAKE + invocation('1', 'SubscribeScan', 's1') + '{"type":6}' + RS + invocation('2', 'UnsubscribeScan', 's1'));
    await client.waitForRecords(3);
    assert.deepEqual(client.records.slice(0, 3), [{}, { type: 3, invocationId: '1', result: null }, { type: 3, invocationId: '2', result: null }]);
  });

  test('one message split across three frames is handled once it is whole', async () => {
    const client = await connect();
    const message = invocation('split', 'SubscribeScan', 'scan-split');
    client.send(message.slice(0, 10));
    client.send(message.slice(10, 30));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(client.records.filter((r) => r.type === 3).length, 0, 'nothing is answered before the separator arrives');
    client.send(message.slice(30));
    await until('the Completion', () => client.records.some((r) => r.type === 3));
    assert.deepEqual(client.records.find((r) => r.type === 3), { type: 3, invocationId: 'split', result: null });
  });

  test('an invocation without an invocationId gets no Completion; one with an unknown method gets an error Completion', async () => {
    const client = await connect();
    client.send(invocation(undefined, 'SubscribeScan', 'quiet') + invocation('x', 'NoSuchMethod'));
    await until('a Completion', () => client.records.some((r) => r.type === 3));
    assert.deepEqual(
      client.records.filter((r) => r.type === 3),
      [{ type: 3, invocationId: 'x', error: "Unknown hub method 'NoSuchMethod'" }],
    );
  });

  test('an unknown message type is skipped and the connection goes on', async () => {
    const client = await connect();
    client.send(`{"type":99,"future":true}${RS}` + invocation('after', 'SubscribeScan', 'x'));
    await until('the Completion', () => client.records.some((r) => r.type === 3));
    assert.equal(client.isOpen, true);
  });

  for (const [what, handshake, error] of [
    ['an unknown protocol (messagepack)', `{"protocol":"messagepack","version":1}${RS}`, /protocol 'messagepack' is not supported/],
    ['an unsupported version', `{"protocol":"json","version":7}${RS}`, /does not support version 7/],
    ['a handshake that is not JSON', `hello${RS}`, /not valid JSON/],
    ['a handshake without a protocol', `{"version":1}${RS}`, /must be/],
  ] as const) {
    test(`${what} is refused in the handshake answer and the socket is closed`, async () => {
      const client = await open();
      client.send(handshake);
      await client.closed;
      assert.equal(client.records.length, 1);
      assert.match(String(client.records[0]!.error), error);
    });
  }

  test('a client that never sends the handshake is closed after the handshake timeout', async () => {
    const client = await open();
    assert.equal(await client.closed, 1000);
    assert.match(String(client.records[0]?.error), /Handshake was canceled/);
  });

  test('a message that is not JSON ends the connection with a Close carrying the error', async () => {
    const client = await connect();
    client.send(`{"type":1,${RS}`);
    await client.closed;
    assert.equal(client.records.at(-1)!.type, 7);
    assert.match(String(client.records.at(-1)!.error), /not valid JSON/);
    assert.equal(client.records.at(-1)!.allowReconnect, undefined);
  });

  test('a message larger than maxMessageBytes, even spread over frames, ends the connection', async () => {
    const client = await connect();
    for (let i = 0; i < 5 && client.isOpen; i++) {
      client.send(`{"type":1,"target":"SubscribeScan","arguments":["${'a'.repeat(600)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await client.closed;
    assert.match(String(client.records.at(-1)?.error), /exceeds 2048 bytes/);
  });

  test('the server sends a Ping when it has had nothing else to send for keepAliveIntervalMs', async () => {
    const client = await connect();
    await until('two pings', () => client.records.filter((r) => r.type === 6).length >= 2, 5_000);
  });

  test('a client that sends nothing for clientTimeoutMs is dropped with a Close message; one that keeps pinging is not', async () => {
    const [quiet, pinging] = await Promise.all([connect(), connect()]);
    const pinger = setInterval(() => pinging.send(`{"type":6}${RS}`), 200);
    try {
      assert.equal(await quiet.closed, 1000);
      const close = quiet.records.at(-1)!;
      assert.equal(close.type, 7);
      assert.match(String(close.error), /timed out/);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(pinging.isOpen, true, 'the pinging client, connected as long, is still open');
    } finally {
      clearInterval(pinger);
    }
  });

  test('events go out as Invocations with one argument and no invocationId', async () => {
    const client = await connect();
    await publish(gw, token, [{ name: 'DeviceStatusChanged', payload: { deviceId: 'd9', online: true, lastSeen: '2025-01-01T00:00:00.000Z' } }]);
    await until('the event', () => client.records.some((r) => r.type === 1));
    assert.deepEqual(
      client.records.find((r) => r.type === 1),
      { type: 1, target: 'DeviceStatusChanged', arguments: [{ deviceId: 'd9', online: true, lastSeen: '2025-01-01T00:00:00.000Z' }] },
    );
  });

  describe('the upgrade', { concurrency: true }, () => {
    const negotiate = async (bearer: string) => {
      const res = await gw.request('POST', '/scanHub/negotiate?negotiateVersion=1', { token: bearer });
      assert.equal(res.status, 200);
      return (await res.json()) as { connectionId: string; connectionToken: string };
    };

    test('is refused with 401 without a token or with a bad one, in the header or the query', async () => {
      assert.equal(await upgradeStatus(hubUrl(gw)), 401);
      assert.equal(await upgradeStatus(hubUrl(gw, { access_token: 'forged' })), 401);
      assert.equal(await upgradeStatus(hubUrl(gw), { authorization: 'Bearer forged' }), 401);
      assert.equal(await upgradeStatus(hubUrl(gw), { authorization: `Bearer ${token}` }), 101);
      assert.equal(await upgradeStatus(hubUrl(gw, { access_token: token })), 101);
    });

    test('takes a negotiated id once: unknown 404, a second socket 409, and the id is gone after its socket closes', async () => {
      const { connectionToken } = await negotiate(token);
      assert.equal(await upgradeStatus(hubUrl(gw, { id: 'never-negotiated', access_token: token })), 404);
      const first = await RawHubClient.connect(hubUrl(gw, { id: connectionToken, access_token: token }));
      assert.equal(await upgradeStatus(hubUrl(gw, { id: connectionToken, access_token: token })), 409);
      first.close();
      await first.closed;
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 404; attempt++) {
        // The server learns of the close a moment after the client; until then the id is still taken.
        status = await upgradeStatus(hubUrl(gw, { id: connectionToken, access_token: token }));
        if (status !== 404) assert.equal(status, 409);
      }
      assert.equal(status, 404);
    });

    test("refuses another user's negotiated id with 403", async () => {
      // The other user first: a negotiated id lives only clientTimeoutMs (1.5 s here) unused.
      const other = await gw.userWith(['devices:read']);
      const { connectionToken } = await negotiate(token);
      assert.equal(await upgradeStatus(hubUrl(gw, { id: connectionToken, access_token: other })), 403);
    });
  });
});
