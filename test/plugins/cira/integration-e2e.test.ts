/**
 * End to end with the CIRA simulator: devices that dial in are listed (one device per UUID, also
 * when a LAN scan finds it), read, powered and diagnosed through their tunnels, counted as connected
 * by the SOAP service, and go offline (with a notification) when their tunnel dies.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet } from '../../sim/index.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import { startReceiver, type NotificationReceiver } from '../soap-mps/notification-receiver.js';
import { ADMIN, basicHeader, envelope, soapPoster, soapServiceUrl, type SoapTestGateway } from '../soap-mps/soap-test-gateway.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import { assertHubShapes, connectSignalR, type Received } from '../scan-hub/hub-test-kit.js';
import type { HubConnection } from '@microsoft/signalr';
import { ciraPort } from './gateway-cira-helpers.js';
import { until } from '../../helpers/poll.js';

const MPS = { username: 'mps-e2e', password: 'Mps-P@ssw0rd-e2e' };
const CIRA_BASE = '127.41.3.1';
const LAN_BASE = '127.41.4.1';

describe('CIRA devices in the gateway', () => {
  let gw: TestGateway;
  let token: string;
  let fleet: Fleet;
  let lanFleet: Fleet;
  let post: SoapTestGateway['post'];
  let receiver: NotificationReceiver;
  let ca: string;
  let port: number;
  let hub: { connection: HubConnection; received: Received[] };
  const logs: string[] = [];

  const devices = async (): Promise<Device[]> => (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];
  const byUuid = async (uuid: string) => (await devices()).filter((d) => d.uuid === uuid);
  const isConnected = async (name: string) => {
    const res = await post(envelope(`<m:IsMachineConnected><m:Machine><m:SystemName>${name}</m:SystemName></m:Machine></m:IsMachineConnected>`));
    assert.equal(res.status, 200, res.text);
    return res.xml!.Envelope.Body.IsMachineConnectedResponse.IsConnected === 'true';
  };
  const ciraOptions = (keepAliveSeconds = 1) => ({ host: '127.0.0.1', port, username: MPS.username, password: MPS.password, ca, keepAliveSeconds, reconnectMs: 0 });

  before(async () => {
    gw = await startTestGateway({
      plugins: ['rest-api', 'remote-monitor', 'soap-mps', 'power-mgmt', 'scan-hub', 'cira'],
      logs,
      overrides: mergeConfig(SIM_AMT_SETTINGS, {
        plugins: {
          'remote-monitor': { options: { intervalSeconds: 1, missedProbesOffline: 1, probe: { rmcpWindowMs: 200, connectTimeoutMs: 300 } } },
          'soap-mps': { options: { port: 0, delivery: { backoffMs: 100, timeoutMs: 10_000, maxAttempts: 5 } } },
          cira: { options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 4, forwardSettleMs: 50 } },
        },
      }),
    });
    token = await gw.login();
    await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
    const account = await gw.request('POST', '/api/cira/accounts', { token, body: MPS });
    assert.equal(account.status, 201, await account.text());
    ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
    port = ciraPort(logs);
    post = soapPoster(soapServiceUrl(logs).url, basicHeader(ADMIN.username, ADMIN.password));
    receiver = await startReceiver();
    hub = await connectSignalR(gw.url, token);
    fleet = await startFleet({ count: 3, base: CIRA_BASE, rmcpPort: 0, seed: 'cira-e2e', tlsEvery: 3, cira: ciraOptions() });
  });
  after(async () => {
    await hub?.connection.stop();
    await fleet?.stop();
    await lanFleet?.stop();
    await gw?.cleanup();
    await receiver?.close();
  });

  test('a device that dials in is listed with connections ["cira"] and read through its tunnel', async () => {
    const device = fleet.devices[0]!;
    assert.equal(device.config.httpPort, null, 'the device has no LAN listener: everything goes through the tunnel');
    await device.cira!.waitFor('connected');
    const [listed] = await until('the device is read through its tunnel', async () => {
      const found = await byUuid(device.config.uuid);
      return found.length === 1 && found[0]!.hostname ? found : undefined;
    });
    assert.deepEqual(listed!.connections, ['cira']);
    assert.equal(listed!.online, true);
    // The LAN monitor cannot reach it, yet it is online through its tunnel.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const monitored = (await (await gw.request('GET', '/api/monitor/online', { token })).json()) as Array<{ deviceId: string; online: boolean }>;
    assert.equal(monitored.find((e) => e.deviceId === listed!.id)?.online, true);
    assert.equal(((await byUuid(device.config.uuid))[0]!).online, true);
    assert.equal(listed!.ipAddress, device.address);
    assert.equal(listed!.hostname, device.config.hostname);
    assert.equal(listed!.firmwareVersion, device.config.firmwareVersion);
    assert.equal(listed!.provisioningState, 'POST');
    assert.equal(listed!.authStatus, 'ok');
    assert.ok(device.counters().requests > 0);
    assert.ok(device.cira!.counters.channelsOpened > 0);
  });

  test('a device forwarding only 16993 is read over TLS inside its tunnel', async () => {
    const device = fleet.devices[2]!;
    assert.deepEqual(device.cira!.forwardPorts, [16993, 16995]);
    await device.cira!.waitFor('connected');
    const [listed] = await until('the TLS device is read', async () => {
      const found = await byUuid(device.config.uuid);
      return found[0]?.hostname ? found : undefined;
    });
    assert.equal(listed!.hostname, device.config.hostname);
    assert.equal(listed!.tls, true);
    assert.equal(listed!.tlsFingerprint, device.certificateFingerprint, 'the certificate is pinned end to end through the tunnel');
  });

  test('power state is read and changed through the tunnel', async () => {
    const device = fleet.devices[0]!;
    const [listed] = await byUuid(device.config.uuid);
    const read = await gw.request('GET', `/api/power/${listed!.id}`, { token });
    assert.equal(read.status, 200, await read.clone().text());
    assert.equal(((await read.json()) as { powerState: number }).powerState, 2);
    const change = await gw.request('POST', `/api/power/${listed!.id}`, { token, body: { action: 'off' } });
    assert.equal(change.status, 200, await change.clone().text());
    assert.equal(((await change.json()) as { ok: boolean }).ok, true);
    assert.equal(device.state.powerState, 8);
  });

  test('the channels a read used are closed afterwards: the device holds none open', async () => {
    const device = fleet.devices[0]!;
    const [listed] = await byUuid(device.config.uuid);
    const opened = device.cira!.counters.channelsOpened;
    const read = await gw.request('GET', `/api/power/${listed!.id}`, { token });
    assert.equal(read.status, 200);
    assert.ok(device.cira!.counters.channelsOpened > opened);
    // The operation closes its connection, so its channel, when it ends.
    await until('no channel left open on the device', async () => device.cira!.openChannels === 0, 5_000);
  });

  test('hardware and the event log are read through the tunnel', async () => {
    const [listed] = await byUuid(fleet.devices[0]!.config.uuid);
    const hardware = await gw.request('GET', `/api/monitor/${listed!.id}/hardware`, { token });
    assert.equal(hardware.status, 200, await hardware.clone().text());
    const events = await gw.request('GET', `/api/monitor/${listed!.id}/events`, { token });
    assert.equal(events.status, 200, await events.clone().text());
    assert.ok(((await events.json()) as unknown[]).length > 0);
  });

  test('test-wsman on the address of a tunnelled device goes through the tunnel', async () => {
    const device = fleet.devices[0]!;
    const before = device.cira!.counters.channelsOpened;
    const res = await gw.request('GET', `/api/test/test-wsman/${device.address}`, { token });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { reachable: boolean; authenticated: boolean; hostname: string; port: number };
    assert.equal(body.reachable, true);
    assert.equal(body.authenticated, true);
    assert.equal(body.hostname, device.config.hostname);
    assert.equal(body.port, 16992);
    assert.ok(device.cira!.counters.channelsOpened > before);
  });

  test('a tunnelled device is connected for SOAP; when it vanishes it goes offline within interval + timeout and subscribers are notified', async () => {
    const device = fleet.devices[1]!;
    await device.cira!.waitFor('connected');
    // Online once the server announces the tunnel up (after its forwards), a moment after the device signed in.
    const [listed] = await until('the device is read and online', async () => {
      const found = await byUuid(device.config.uuid);
      return found[0]?.hostname && found[0].online ? found : undefined;
    });
    assert.equal(await isConnected(device.config.uuid), true);
    assert.equal(await isConnected(device.config.hostname), true);
    const subscribed = await post(envelope(`<m:SubscribeForNotifications><m:Delivery>${receiver.url}</m:Delivery></m:SubscribeForNotifications>`));
    assert.equal(subscribed.status, 200, subscribed.text);

    const vanishedAt = Date.now();
    device.cira!.vanish();
    const offline = await until('the device goes offline', async () => {
      const [d] = await byUuid(device.config.uuid);
      return d && !d.online ? d : undefined;
    });
    assert.ok(Date.now() - vanishedAt < 6_000, 'noticed within keep-alive interval + timeout + 1 s');
    assert.equal(offline.id, listed!.id);
    assert.deepEqual(offline.connections, []);
    assert.equal(await isConnected(device.config.uuid), false);
    const notes = await receiver.waitFor(1, 10_000);
    const note = notes.find((n) => String(n.fields.DeviceUuid).toLowerCase() === device.config.uuid);
    assert.ok(note, 'a notification names the device');
    assert.equal(note.fields.State, '1');
    assert.match(String(note.fields.DeviceFqdn), new RegExp(`^${device.config.hostname}`, 'i'));
    const statusOf = () => hub.received.filter((r) => r.target === 'DeviceStatusChanged' && r.arg.deviceId === listed!.id).map((r) => r.arg.online);
    await until('the hub carries the disconnect', async () => statusOf().includes(false));

    device.cira!.start();
    await device.cira!.waitFor('connected');
    await until('the device is back online as the same device', async () => {
      const found = await byUuid(device.config.uuid);
      return found.length === 1 && found[0]!.online && found[0]!.id === listed!.id;
    });
    await until('the hub carries the reconnect', async () => statusOf().at(-1) === true);
    const back = await receiver.waitFor(2, 10_000);
    assert.ok(back.some((n) => n.fields.State === '0' && String(n.fields.DeviceUuid).toLowerCase() === device.config.uuid));
  });

  test('a silent tunnel (socket open, no keep-alives) is dropped and the device goes offline', async () => {
    const device = fleet.devices[1]!;
    await device.cira!.waitFor('connected');
    device.cira!.setFault('silent');
    try {
      await until('the silent device goes offline', async () => {
        const [d] = await byUuid(device.config.uuid);
        return d && !d.online;
      }, 10_000);
    } finally {
      device.cira!.setFault('none');
    }
  });

  test('a reconnect storm of one UUID leaves one device, connected', async () => {
    const device = fleet.devices[0]!;
    const [listed] = await byUuid(device.config.uuid);
    await device.cira!.reconnectStorm(8, 30);
    await device.cira!.waitFor('connected');
    // The device signs in before the server announces the tunnel (forwards settle first).
    const tunnelsOf = async () =>
      ((await (await gw.request('GET', '/api/cira/connections', { token })).json()) as Array<{ deviceId: string }>).filter((t) => t.deviceId === listed!.id);
    await until('the last tunnel is announced', async () => (await tunnelsOf()).length === 1);
    const found = await until('the stormed device is connected', async () => {
      const all = await byUuid(device.config.uuid);
      return all.length === 1 && all[0]!.online ? all : undefined;
    });
    assert.equal(found[0]!.id, listed!.id);
    assert.deepEqual(found[0]!.connections, ['cira']);
    // Stays so: no late down of a replaced tunnel takes it offline.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await tunnelsOf()).length, 1);
    assert.equal((await byUuid(device.config.uuid))[0]!.online, true);
  });

  test('a device with a wrong MPS password never reaches the device list', async () => {
    const wrong = await startFleet({ count: 1, base: '127.41.5.1', rmcpPort: 0, seed: 'cira-e2e-wrong', cira: { ...ciraOptions(), password: 'not-the-password' } });
    try {
      const device = wrong.devices[0]!;
      await device.cira!.waitFor('refused');
      assert.equal(device.cira!.counters.authFailures, 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal((await byUuid(device.config.uuid)).length, 0);
    } finally {
      await wrong.stop();
    }
  });

  test('the same UUID found by a LAN scan is one device with connections ["lan", "cira"]', async () => {
    lanFleet = await startFleet({ count: 1, base: LAN_BASE, rmcpPort: SIM_RMCP_PORT, seed: 'cira-e2e-lan', cira: ciraOptions(), ciraLan: true });
    const device = lanFleet.devices[0]!;
    await device.cira!.waitFor('connected');
    await until('the tunnel is listed', async () => (await byUuid(device.config.uuid)).length === 1);
    const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: `${LAN_BASE}-1` })).id);
    assert.equal(scan.found, 1);
    const [one, ...others] = await byUuid(device.config.uuid);
    assert.equal(others.length, 0, 'no duplicate');
    assert.deepEqual(one!.connections, ['lan', 'cira']);

    // The tunnel going away leaves the device online over the LAN, without a flap.
    await device.cira!.stop();
    const lanOnly = await until('the tunnel is gone', async () => {
      const [d] = await byUuid(device.config.uuid);
      return d && d.connections?.length === 1 ? d : undefined;
    });
    assert.deepEqual(lanOnly.connections, ['lan']);
    assert.equal(lanOnly.online, true);
  });

  test('every event the hub sent meanwhile held its documented shape', async () => {
    assert.ok(hub.received.some((r) => r.target === 'DeviceStatusChanged'));
    await assertHubShapes(gw.url, hub.received);
  });
});
