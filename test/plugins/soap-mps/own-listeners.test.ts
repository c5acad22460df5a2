/**
 * Notifications never go to the gateway's own listeners: not its main listener, not the SOAP
 * listener, not a listener a plugin opened itself (the CIRA server), whether the Delivery names the
 * address, a wildcard-bound listener's other local address, or a name that resolves to one of them;
 * other services within the allowed networks still get theirs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testMachine } from './fixtures/presence-fixture-plugin.js';
import { startReceiver, type NotificationReceiver } from './notification-receiver.js';
import { envelope, faultOf, startSoapGateway, type SoapTestGateway } from './soap-test-gateway.js';

const subscribe = (delivery: string) => envelope(`<m:SubscribeForNotifications><m:Delivery>${delivery}</m:Delivery></m:SubscribeForNotifications>`);

describe("the gateway's own listeners are no notification receivers", () => {
  let gw: SoapTestGateway;
  let receiver: NotificationReceiver;
  before(async () => {
    gw = await startSoapGateway({
      machines: [testMachine(1)],
      plugins: ['cira'],
      soap: { notifications: { allowedNetworks: ['127.0.0.0/8'], allowedHosts: ['localhost'] } },
      site: { plugins: { cira: { enable: true, options: { port: 0 } } } },
    });
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver?.close();
    await gw?.cleanup();
  });

  const refused = async (delivery: string) => faultOf(await gw.post(subscribe(delivery)))?.detail;

  test('Subscribe refuses the main listener, the SOAP listener and the CIRA listener, by address or by name', async () => {
    const main = new URL(gw.harness.url);
    const soap = new URL(gw.soapUrl);
    const ciraPort = ciraPortOf(gw.logs);
    for (const delivery of [`${gw.harness.url}/api/health`, `${gw.soapUrl}/MPSInterfaceService`, `http://127.0.0.1:${ciraPort}/`, `http://localhost:${main.port}/`, `http://localhost:${soap.port}/x`]) {
      assert.equal(await refused(delivery), 'GW_ERR_SOAP_DELIVERY_NOT_ALLOWED', delivery);
    }
    assert.equal((await gw.post(subscribe(receiver.url))).status, 200, 'another service on loopback is still a receiver');
  });

  test('the refusal names the reason', async () => {
    const fault = faultOf(await gw.post(subscribe(`${gw.harness.url}/api/auth/login`)));
    assert.match(fault?.message ?? '', /one of this gateway's own listeners/);
  });
});

function ciraPortOf(logs: string[]): number {
  const line = logs.map((l) => JSON.parse(l) as { msg: string; port?: number }).find((l) => l.msg === 'cira server listening');
  if (!line?.port) throw new Error('the CIRA server did not log its port');
  return line.port;
}
