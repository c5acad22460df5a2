/**
 * End to end: the real remote-monitor plugin watches simulated devices; when one goes offline and
 * comes back, the SOAP service notifies a subscriber (which refuses the first attempt, so the retry
 * path runs too) and answers IsMachineConnected / enumeration from the monitor's online state.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import { startReceiver, type NotificationReceiver } from './notification-receiver.js';
import { ADMIN, basicHeader, envelope, soapPoster, soapServiceUrl, type SoapTestGateway } from './soap-test-gateway.js';
import { until } from '../../helpers/poll.js';

const BASE = '127.40.7.1';

describe('notifications from the real online monitor', () => {
  let fleet: Fleet;
  let gw: TestGateway;
  let post: SoapTestGateway['post'];
  let receiver: NotificationReceiver;
  const logs: string[] = [];

  before(async () => {
    fleet = await startFleet({ count: 3, base: BASE, rmcpPort: SIM_RMCP_PORT, seed: 'soap-e2e' });
    gw = await startTestGateway({
      plugins: ['rest-api', 'remote-monitor', 'soap-mps'],
      logs,
      overrides: mergeConfig(SIM_AMT_SETTINGS, {
        plugins: {
          'remote-monitor': { options: { intervalSeconds: 0.5, missedProbesOffline: 1, probe: { rmcpWindowMs: 200, connectTimeoutMs: 300 } } },
          'soap-mps': { options: { port: 0, delivery: { backoffMs: 100, timeoutMs: 10_000, maxAttempts: 5 } } },
        },
      }),
    });
    const token = await gw.login();
    await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
    const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: `${BASE}-3` })).id);
    assert.equal(scan.found, 3);
    post = soapPoster(soapServiceUrl(logs).url, basicHeader(ADMIN.username, ADMIN.password));
    receiver = await startReceiver({ failFirst: 1 });
  });
  after(async () => {
    await gw?.cleanup();
    await fleet?.stop();
    await receiver?.close();
  });

  const isConnected = async (name: string) => {
    const res = await post(envelope(`<m:IsMachineConnected><m:Machine><m:SystemName>${name}</m:SystemName></m:Machine></m:IsMachineConnected>`));
    assert.equal(res.status, 200, res.text);
    return res.xml!.Envelope.Body.IsMachineConnectedResponse.IsConnected === 'true';
  };


  test('a device going offline and coming back is notified, and IsMachineConnected follows it', async () => {
    const device = fleet.devices[1]!;
    const { hostname, uuid, address } = device.config;
    await until('the scanned device counts as connected', () => isConnected(hostname), 20_000);
    const subscribed = await post(envelope(`<m:SubscribeForNotifications><m:Delivery>${receiver.url}</m:Delivery></m:SubscribeForNotifications>`));
    assert.equal(subscribed.status, 200, subscribed.text);

    await device.stop();
    const [offline] = await receiver.waitFor(1, 30_000);
    assert.equal(offline!.fields.State, '1');
    assert.match(String(offline!.fields.DeviceFqdn), new RegExp(`^${hostname}(\\.|$)`, 'i'));
    assert.equal(String(offline!.fields.DeviceUuid).toLowerCase(), uuid.toLowerCase());
    assert.equal(await isConnected(hostname), false);
    assert.equal(await isConnected(address), false);
    assert.ok(receiver.attempts >= 2, 'the refused first attempt was retried');

    await device.start();
    const [, online] = await receiver.waitFor(2, 30_000);
    assert.equal(online!.fields.State, '0');
    assert.equal(online!.fields.DeviceFqdn, offline!.fields.DeviceFqdn);
    assert.equal(await isConnected(hostname), true);
  });
});
