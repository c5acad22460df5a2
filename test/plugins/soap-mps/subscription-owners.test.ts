/**
 * SOAP subscriptions belong to the caller who made them: another caller cannot unsubscribe them,
 * each caller holds at most `maxPerCaller`, so one caller cannot take every slot, and a holder of
 * `mps:manage` may remove anyone's.
 */
import { after, before, describe, test } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../core/store/level-store.js';
import { createSubscriptionStore } from '../../../plugins/soap-mps/subscription-store.js';
import assert from 'node:assert/strict';
import { testMachine } from './fixtures/presence-fixture-plugin.js';
import { startReceiver, type NotificationReceiver } from './notification-receiver.js';
import { basicHeader, envelope, faultOf, startSoapGateway, type SoapTestGateway } from './soap-test-gateway.js';

const subscribe = (delivery: string) => envelope(`<m:SubscribeForNotifications><m:Delivery>${delivery}</m:Delivery></m:SubscribeForNotifications>`);
const unsubscribe = (delivery: string) => envelope(`<m:Unsubscribe><m:Delivery>${delivery}</m:Delivery></m:Unsubscribe>`);
const PASSWORD = 'user-password-1';

describe('subscription owners', () => {
  let gw: SoapTestGateway;
  let receiver: NotificationReceiver;
  const as = (username: string) => ({ authorization: basicHeader(username, PASSWORD) });

  before(async () => {
    gw = await startSoapGateway({ machines: [testMachine(1)], soap: { delivery: { timeoutMs: 10_000, maxAttempts: 2, backoffMs: 50, maxPending: 10 }, subscriptions: { maxSubscriptions: 10, maxPerCaller: 3 } } });
    await gw.harness.userWith(['mps:read'], 'alice');
    await gw.harness.userWith(['mps:read'], 'bob');
    await gw.harness.userWith(['mps:read', 'mps:manage'], 'overseer');
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await gw?.cleanup();
  });

  test("another caller cannot unsubscribe a caller's delivery, and it keeps receiving", async () => {
    assert.equal((await gw.post(subscribe(receiver.url), as('alice'))).status, 200);
    const refused = await gw.post(unsubscribe(receiver.url), as('bob'));
    assert.equal(faultOf(refused)?.detail, 'GW_ERR_SOAP_UNKNOWN_SUBSCRIPTION', 'the same answer as for a URI nobody subscribed');
    gw.fixture.disconnect('dev-000001');
    const [notification] = await receiver.waitFor(1);
    assert.equal(notification!.fields.State, '1', "alice's subscription still delivers");
    assert.equal((await gw.post(unsubscribe(receiver.url), as('alice'))).status, 200, 'its owner can');
  });

  test('a caller holds at most maxPerCaller subscriptions; others still subscribe', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await gw.post(subscribe(`http://127.0.0.1:9/bob-${i}`), as('bob'))).status, 200);
    const fourth = await gw.post(subscribe('http://127.0.0.1:9/bob-3'), as('bob'));
    assert.equal(faultOf(fourth)?.detail, 'GW_ERR_SOAP_TOO_MANY_CALLER_SUBSCRIPTIONS');
    assert.equal((await gw.post(subscribe('http://127.0.0.1:9/bob-0'), as('bob'))).status, 200, 'renewing its own is no new subscription');
    assert.equal((await gw.post(subscribe('http://127.0.0.1:9/admin'))).status, 200, 'the admin still subscribes');
  });

  test('two callers subscribing one URI each own their own subscription; the receiver gets one notification per event', async () => {
    assert.equal((await gw.post(subscribe(receiver.url), as('alice'))).status, 200);
    assert.equal((await gw.post(subscribe(receiver.url), as('overseer'))).status, 200);
    gw.fixture.connect('dev-000001');
    await receiver.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.received.length, 2, 'one notification for the event, not one per subscriber');
    assert.equal((await gw.post(unsubscribe(receiver.url), as('alice'))).status, 200);
  });

  test('a holder of mps:manage removes any caller\'s subscription of a URI', async () => {
    assert.equal((await gw.post(subscribe('http://127.0.0.1:9/bob-1'), as('overseer'))).status, 200);
    assert.equal((await gw.post(unsubscribe('http://127.0.0.1:9/bob-1'), as('overseer'))).status, 200);
    assert.equal(faultOf(await gw.post(unsubscribe('http://127.0.0.1:9/bob-1'), as('bob')))?.detail, 'GW_ERR_SOAP_UNKNOWN_SUBSCRIPTION', "bob's went too");
  });

  test("a deleted user's subscriptions end with it", async () => {
    await gw.harness.userWith(['mps:read'], 'leaver');
    assert.equal((await gw.post(subscribe('http://127.0.0.1:9/leaver'), as('leaver'))).status, 200);
    assert.equal((await gw.harness.request('DELETE', '/api/users/leaver', { token: await gw.harness.login() })).status, 204);
    assert.equal(faultOf(await gw.post(unsubscribe('http://127.0.0.1:9/leaver'), as('overseer')))?.detail, 'GW_ERR_SOAP_UNKNOWN_SUBSCRIPTION', 'nothing left to remove');
  });
});

test('subscriptions stored before owners were keyed by id are taken over by their user, or dropped when it is gone', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-subscriptions-'));
  const store = await openStore(dir);
  try {
    const ns = store.namespace('plugin:soap-mps');
    const stored = (delivery: string, subscriber: string) => ({ delivery, subscriber, createdAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await ns.put('subscription:http://127.0.0.1:9/a', stored('http://127.0.0.1:9/a', 'alice'));
    await ns.put('subscription:http://127.0.0.1:9/gone', stored('http://127.0.0.1:9/gone', 'deleted-user'));
    await ns.put('subscription:http://127.0.0.1:9/net', stored('http://127.0.0.1:9/net', 'address:10.0.0.1'));
    const subscriptions = createSubscriptionStore(ns, { ttlSeconds: 60, maxSubscriptions: 10, maxPerCaller: 10 });
    await subscriptions.load(async (name) => (name === 'alice' ? 'user:id-alice' : null));
    assert.deepEqual(subscriptions.live().map((s) => [s.subscriber, s.delivery]).sort(), [['address:10.0.0.1', 'http://127.0.0.1:9/net'], ['user:id-alice', 'http://127.0.0.1:9/a']]);
    const again = createSubscriptionStore(ns, { ttlSeconds: 60, maxSubscriptions: 10, maxPerCaller: 10 });
    await again.load(async () => null);
    assert.equal(again.live().length, 2, 'written back in the new form');
    await assert.rejects(again.unsubscribe('user:someone-else', 'http://127.0.0.1:9/a'), /no subscription/);
    await again.unsubscribe('user:id-alice', 'http://127.0.0.1:9/a');
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
