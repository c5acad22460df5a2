/**
 * MpsAddress of SOAP notifications: a device connected over CIRA is connected to the CIRA listener it
 * dialed (the configured public address, else the listener's address), a device on the local network
 * to this gateway's SOAP/MPS address. Real subscriber, real CIRA simulator devices, real LAN devices.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet } from '../../sim/index.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import { ciraPort } from '../cira/gateway-cira-helpers.js';
import { startReceiver, type NotificationReceiver, type ReceivedNotification } from './notification-receiver.js';
import { ADMIN, basicHeader, envelope, soapPoster, soapServiceUrl } from './soap-test-gateway.js';
import { until } from '../../helpers/poll.js';

const MPS = { username: 'mps-address', password: 'Mps-Addr3ss-P@ss' };

interface Running {
  gw: TestGateway;
  logs: string[];
  receiver: NotificationReceiver;
  ca: string;
  /** The SOAP listener's host, today's MpsAddress. */
  soapHost: string;
}

async function startGateway(cira: Record<string, unknown>): Promise<Running> {
  const logs: string[] = [];
  const gw = await startTestGateway({
    plugins: ['rest-api', 'remote-monitor', 'soap-mps', 'cira'],
    logs,
    overrides: mergeConfig(SIM_AMT_SETTINGS, {
      plugins: {
        'remote-monitor': { options: { intervalSeconds: 0.5, missedProbesOffline: 1, probe: { rmcpWindowMs: 200, connectTimeoutMs: 300 } } },
        'soap-mps': { options: { port: 0, delivery: { backoffMs: 100, timeoutMs: 10_000, maxAttempts: 5 } } },
        cira: { options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 2, forwardSettleMs: 50, ...cira } },
      },
    }),
  });
  const token = await gw.login();
  await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  const account = await gw.request('POST', '/api/cira/accounts', { token, body: MPS });
  assert.equal(account.status, 201, await account.text());
  const ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
  const { url } = soapServiceUrl(logs);
  const receiver = await startReceiver();
  const post = soapPoster(url, basicHeader(ADMIN.username, ADMIN.password));
  const subscribed = await post(envelope(`<m:SubscribeForNotifications><m:Delivery>${receiver.url}</m:Delivery></m:SubscribeForNotifications>`));
  assert.equal(subscribed.status, 200, subscribed.text);
  return { gw, logs, receiver, ca, soapHost: new URL(url).hostname };
}

const aboutDevice = (receiver: NotificationReceiver, uuid: string, state: '0' | '1') =>
  until(`a notification with State ${state} for ${uuid}`, async () =>
    receiver.received.find((n: ReceivedNotification) => String(n.fields.DeviceUuid).toLowerCase() === uuid && n.fields.State === state));

describe('MpsAddress with a configured CIRA public address', () => {
  const CIRA_HOST = '127.147.0.1';
  const PUBLIC = 'mps.example.test:4433';
  let running: Running;
  let ciraFleet: Fleet | undefined;
  let lanFleet: Fleet | undefined;

  before(async () => {
    running = await startGateway({ host: CIRA_HOST, publicAddress: PUBLIC });
  });
  after(async () => {
    await ciraFleet?.stop();
    await lanFleet?.stop();
    await running?.gw.cleanup();
    await running?.receiver.close();
  });

  test('a CIRA device connecting and disconnecting is notified with the address devices dial in at', async () => {
    const { logs, receiver, ca } = running;
    ciraFleet = await startFleet({
      count: 1,
      base: '127.147.1.1',
      rmcpPort: 0,
      seed: 'mps-address-cira',
      cira: { host: CIRA_HOST, port: ciraPort(logs), username: MPS.username, password: MPS.password, ca, keepAliveSeconds: 1, reconnectMs: 0 },
    });
    const device = ciraFleet.devices[0]!;
    await device.cira!.waitFor('connected');
    const connected = await aboutDevice(receiver, device.config.uuid, '0');
    assert.equal(connected.fields.MpsAddress, PUBLIC);

    device.cira!.vanish();
    const disconnected = await aboutDevice(receiver, device.config.uuid, '1');
    assert.equal(disconnected.fields.MpsAddress, PUBLIC, 'the disconnect names the MPS the device was connected to');
  });

  test('a device on the local network is notified with the SOAP/MPS address of the gateway', async () => {
    const { gw, receiver, soapHost } = running;
    lanFleet = await startFleet({ count: 1, base: '127.147.2.1', rmcpPort: SIM_RMCP_PORT, seed: 'mps-address-lan' });
    const token = await gw.login();
    const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: '127.147.2.1-1' })).id);
    assert.equal(scan.found, 1);
    const device = lanFleet.devices[0]!;
    await device.stop();
    const disconnected = await aboutDevice(receiver, device.config.uuid, '1');
    assert.equal(disconnected.fields.MpsAddress, soapHost);
    await device.start();
    const connected = await aboutDevice(receiver, device.config.uuid, '0');
    assert.equal(connected.fields.MpsAddress, soapHost);
    assert.notEqual(soapHost, PUBLIC);
  });
});

describe('MpsAddress without a configured CIRA public address', () => {
  const CIRA_HOST = '127.147.0.2';
  let running: Running;
  let ciraFleet: Fleet | undefined;

  before(async () => {
    running = await startGateway({ host: CIRA_HOST });
  });
  after(async () => {
    await ciraFleet?.stop();
    await running?.gw.cleanup();
    await running?.receiver.close();
  });

  test('a CIRA device is notified with the CIRA listener address, port included when not 4433', async () => {
    const { logs, receiver, ca, soapHost } = running;
    const port = ciraPort(logs);
    ciraFleet = await startFleet({
      count: 1,
      base: '127.147.3.1',
      rmcpPort: 0,
      seed: 'mps-address-listener',
      cira: { host: CIRA_HOST, port, username: MPS.username, password: MPS.password, ca, keepAliveSeconds: 1, reconnectMs: 0 },
    });
    const device = ciraFleet.devices[0]!;
    await device.cira!.waitFor('connected');
    const connected = await aboutDevice(receiver, device.config.uuid, '0');
    assert.equal(connected.fields.MpsAddress, `${CIRA_HOST}:${port}`);
    assert.notEqual(connected.fields.MpsAddress, soapHost);
  });
});
