/**
 * The notification allow-list through a real gateway (loopback only): 127.0.0.2 stands for an
 * internal host outside a narrowed `notifications.allowedNetworks`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { testMachine } from './fixtures/presence-fixture-plugin.js';
import { startReceiver } from './notification-receiver.js';
import { envelope, faultOf, startSoapGateway } from './soap-test-gateway.js';

const MACHINES = [testMachine(1), testMachine(2)];
const DELIVERY = { timeoutMs: 10_000, maxAttempts: 3, backoffMs: 50, maxPending: 10 };
const NARROWED = { allowedNetworks: ['127.0.0.1/32'] };
const subscribe = (delivery: string) => envelope(`<m:SubscribeForNotifications><m:Delivery>${delivery}</m:Delivery></m:SubscribeForNotifications>`);

test('Subscribe refuses a Delivery outside the allowed networks with a SOAP fault naming the reason', async () => {
  const gw = await startSoapGateway({ machines: MACHINES, soap: { delivery: DELIVERY, notifications: NARROWED } });
  try {
    const refused = await gw.post(subscribe('http://127.0.0.2:9/notify'));
    assert.equal(refused.status, 500);
    assert.deepEqual(faultOf(refused), {
      code: 'soap:Client',
      message: 'Delivery host 127.0.0.2: not in the networks notifications may reach (notifications.allowedNetworks)',
      detail: 'GW_ERR_SOAP_DELIVERY_NOT_ALLOWED',
    });
    // The mapped IPv6 spelling of the same address is the same address.
    assert.equal(faultOf(await gw.post(subscribe('http://[::ffff:127.0.0.2]:9/notify')))?.detail, 'GW_ERR_SOAP_DELIVERY_NOT_ALLOWED');
    assert.equal((await gw.post(subscribe('http://127.0.0.1:9/notify'))).status, 200);
  } finally {
    await gw.cleanup();
  }
});

test('a stored subscription the site has since excluded gets no connection; allowed ones still get their notifications', async () => {
  const inside = await startReceiver();
  const outside = await startReceiver({ host: '127.0.0.2' });
  let gw = await startSoapGateway({ machines: MACHINES, soap: { delivery: DELIVERY } });
  const { dataDir, masterKey } = gw.harness;
  try {
    assert.equal((await gw.post(subscribe(outside.url))).status, 200, 'the default networks include all of loopback');
    assert.equal((await gw.post(subscribe(inside.url))).status, 200);
    await gw.stop();
    gw = await startSoapGateway({ machines: MACHINES, soap: { delivery: DELIVERY, notifications: NARROWED }, dataDir, masterKey });
    gw.fixture.disconnect('dev-000002');
    const [n] = await inside.waitFor(1);
    assert.equal(n!.fields.DeviceFqdn, 'amt-2.example.test');
    await sleep(300);
    assert.equal(outside.connections, 0, 'the excluded receiver was never connected to');
    assert.deepEqual(outside.received, []);
    assert.ok(gw.logs.some((l) => l.includes('notification not sent: the receiver is not allowed') && l.includes(`http://127.0.0.2:`)), 'the refusal is logged');
  } finally {
    await gw.cleanup();
    await inside.close();
    await outside.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
