import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { testMachine } from './fixtures/presence-fixture-plugin.js';
import { startReceiver, type NotificationReceiver } from './notification-receiver.js';
import { envelope, faultOf, startSoapGateway, type SoapResponse, type SoapTestGateway } from './soap-test-gateway.js';

const MACHINES = [testMachine(1), testMachine(2)];
// A long timeout: under load a slow answer must not count as a failed attempt.
const FAST_DELIVERY = { timeoutMs: 10_000, maxAttempts: 5, backoffMs: 50, maxPending: 10 };

const subscribe = (delivery: string) => envelope(`<m:SubscribeForNotifications><m:Delivery>${delivery}</m:Delivery></m:SubscribeForNotifications>`);
const unsubscribe = (delivery: string) => envelope(`<m:Unsubscribe><m:Delivery>${delivery}</m:Delivery></m:Unsubscribe>`);

function expiresOf(res: SoapResponse): number {
  assert.equal(res.status, 200, res.text);
  return Date.parse(String(res.xml!.Envelope.Body.SubscribeForNotificationsResponse.Expires));
}

describe('notifications', () => {
  let gw: SoapTestGateway;
  const receivers: NotificationReceiver[] = [];
  const receiver = async (options?: Parameters<typeof startReceiver>[0]) => {
    const r = await startReceiver(options);
    receivers.push(r);
    return r;
  };

  before(async () => {
    gw = await startSoapGateway({ machines: MACHINES, soap: { delivery: FAST_DELIVERY, subscriptions: { maxSubscriptions: 4 } } });
  });
  afterEach(async () => {
    for (const r of receivers) await gw.post(unsubscribe(r.url));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    gw.fixture.setMachines(MACHINES);
  });
  after(() => gw?.cleanup());

  test('a subscriber receives a SOAP notification when a machine goes offline and when it comes back', async () => {
    const r = await receiver();
    const before = Date.now();
    const expires = expiresOf(await gw.post(subscribe(r.url)));
    assert.ok(expires >= before + 86_400_000 - 1000, 'Expires: the default lifetime of one day');

    gw.fixture.disconnect('dev-000001');
    gw.fixture.connect('dev-000001');
    const [offline, online] = await r.waitFor(2);
    for (const n of [offline!, online!]) {
      assert.equal(n.path, '/notify');
      assert.match(n.contentType ?? '', /^text\/xml/);
      assert.equal(n.soapAction, `"${gw.ns}/ConnectionStateChanged"`);
      assert.equal(n.element, 'ConnectionStateChanged');
      assert.match(n.body, new RegExp(`xmlns:mps="${gw.ns}"`));
      assert.equal(n.fields.DeviceFqdn, 'amt-1.example.test');
      assert.deepEqual(n.fields.DevicePort, ['16992', '16993']);
      assert.equal(n.fields.DeviceUuid, MACHINES[0]!.uuid);
      assert.equal(n.fields.MpsAddress, '127.0.0.1');
      assert.equal(n.fields.WantReply, 'false');
    }
    assert.equal(offline!.fields.State, '1', 'disconnected');
    assert.equal(online!.fields.State, '0', 'connected');
  });

  test('failed deliveries are retried with backoff until the receiver accepts', async () => {
    const flaky = await receiver({ failFirst: 2 });
    await gw.post(subscribe(flaky.url));
    gw.fixture.disconnect('dev-000002');
    const [n] = await flaky.waitFor(1);
    assert.equal(n!.fields.State, '1');
    assert.equal(flaky.attempts, 3, 'two failures, then the delivery');
  });

  test('a dead receiver never holds up another', async () => {
    const dead = await receiver({ hang: true });
    const healthy = await receiver();
    await gw.post(subscribe(dead.url));
    await gw.post(subscribe('http://127.0.0.1:9/refused'));
    await gw.post(subscribe(healthy.url));
    try {
      gw.fixture.disconnect('dev-000001');
      gw.fixture.connect('dev-000001');
      gw.fixture.disconnect('dev-000002');
      const got = await healthy.waitFor(3);
      assert.deepEqual(got.map((n) => [n.fields.DeviceFqdn, n.fields.State]), [['amt-1.example.test', '1'], ['amt-1.example.test', '0'], ['amt-2.example.test', '1']]);
      assert.ok(dead.attempts >= 1, 'the dead receiver was tried');
      // The SOAP service answers meanwhile.
      assert.equal((await gw.post(envelope('<m:EnumerateConnectedMachines/>'))).status, 200);
    } finally {
      await gw.post(unsubscribe('http://127.0.0.1:9/refused'));
    }
  });

  test('an unsubscribed receiver gets nothing; subscribing again renews rather than duplicates', async () => {
    const r = await receiver();
    const first = expiresOf(await gw.post(subscribe(r.url)));
    await sleep(20);
    const second = expiresOf(await gw.post(subscribe(r.url)));
    assert.ok(second > first, 'Expires moves on');
    gw.fixture.disconnect('dev-000001');
    await r.waitFor(1);
    await sleep(300);
    assert.equal(r.received.length, 1, 'one subscription, one notification');

    const res = await gw.post(unsubscribe(r.url));
    assert.equal(res.status, 200);
    assert.equal(res.xml!.Envelope.Body, '', 'Unsubscribe answers with an empty Body');
    gw.fixture.connect('dev-000001');
    await sleep(300);
    assert.equal(r.received.length, 1);
  });

  test('subscriptions are bounded in number', async () => {
    const urls = ['a', 'b', 'c', 'd'].map((p) => `http://127.0.0.1:9/${p}`);
    try {
      for (const url of urls) assert.equal((await gw.post(subscribe(url))).status, 200);
      const refused = await gw.post(subscribe('http://127.0.0.1:9/e'));
      assert.equal(refused.status, 500);
      assert.equal(faultOf(refused)!.detail, 'GW_ERR_SOAP_TOO_MANY_SUBSCRIPTIONS');
      assert.equal((await gw.post(subscribe(urls[0]!))).status, 200, 'renewing an existing subscription is not a new one');
    } finally {
      for (const url of urls) await gw.post(unsubscribe(url));
    }
  });
});

describe('subscription lifetime', () => {
  test('subscriptions survive a restart', async () => {
    const r = await startReceiver();
    let gw = await startSoapGateway({ machines: MACHINES, soap: { delivery: FAST_DELIVERY } });
    const { dataDir, masterKey } = gw.harness;
    try {
      assert.equal((await gw.post(subscribe(r.url))).status, 200);
      await gw.stop();
      gw = await startSoapGateway({ machines: MACHINES, soap: { delivery: FAST_DELIVERY }, dataDir, masterKey });
      gw.fixture.disconnect('dev-000002');
      const [n] = await r.waitFor(1);
      assert.equal(n!.fields.DeviceFqdn, 'amt-2.example.test');
    } finally {
      await gw.cleanup();
      await r.close();
      const { rm } = await import('node:fs/promises');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
