/**
 * One presence truth: the LAN monitor, CIRA tunnels and scans each report what they saw, and
 * `GET /api/devices/{id}`, SOAP `IsMachineConnected` and the hub's DeviceStatusChanged agree at every
 * step while the monitor keeps sweeping (1 s interval, offline after 3 missed probes): a device is
 * online on the LAN only when something answered there, whatever its tunnel does.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { HubConnection } from '@microsoft/signalr';
import { startFleet, type Fleet, type SimDevice } from '../../../sim/index.js';
import { startTestGateway, type TestGateway } from '../../../helpers/gateway-harness.js';
import { until } from '../../../helpers/poll.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../../core/config/load-config.js';
import { ADMIN, basicHeader, envelope, soapPoster, soapServiceUrl, type SoapTestGateway } from '../../soap-mps/soap-test-gateway.js';
import { assertHubShapes, connectSignalR, type Received } from '../../scan-hub/hub-test-kit.js';
import { ciraPort } from '../../cira/gateway-cira-helpers.js';
import type { Device } from '../../../../plugins/rest-api/api.js';

const MPS = { username: 'mps-presence', password: 'Mps-P@ssw0rd-presence' };
const CIRA_BASE = '127.43.1.1';
const BOTH_BASE = '127.43.2.1';
const MISSED_PROBES_OFFLINE = 3;
/** Longer than the monitor needs to call a silent address offline: several sweeps run meanwhile. */
const SWEEPS_MS = (MISSED_PROBES_OFFLINE + 1) * 1000 + 500;

interface Seen {
  online: boolean;
  connections: string[];
}

describe('presence: one truth from the LAN monitor, CIRA tunnels and scans', () => {
  let gw: TestGateway;
  let token: string;
  let post: SoapTestGateway['post'];
  let hub: { connection: HubConnection; received: Received[] };
  let cira: Parameters<typeof startFleet>[0]['cira'];
  /** Fleets started by the tests (one tunnel-only device each, dialing in when its test starts). */
  const ciraFleets: Fleet[] = [];
  let bothFleet: Fleet;
  const logs: string[] = [];

  const listed = async (uuid: string): Promise<Device | undefined> =>
    ((await (await gw.request('GET', '/api/devices', { token })).json()) as Device[]).find((d) => d.uuid === uuid);
  const rest = async (id: string): Promise<Seen> => {
    const res = await gw.request('GET', `/api/devices/${id}`, { token });
    assert.equal(res.status, 200);
    const device = (await res.json()) as Device;
    return { online: device.online, connections: device.connections ?? [] };
  };
  const soapConnected = async (name: string): Promise<boolean> => {
    const res = await post(envelope(`<m:IsMachineConnected><m:Machine><m:SystemName>${name}</m:SystemName></m:Machine></m:IsMachineConnected>`));
    assert.equal(res.status, 200, res.text);
    return res.xml!.Envelope.Body.IsMachineConnectedResponse.IsConnected === 'true';
  };
  const hubSays = (id: string): boolean[] => hub.received.filter((r) => r.target === 'DeviceStatusChanged' && r.arg.deviceId === id).map((r) => r.arg.online as boolean);

  /** What the three consumers say about a device now. */
  const views = async (id: string, uuid: string) => ({ rest: await rest(id), soap: await soapConnected(uuid), hub: hubSays(id).at(-1) });

  /** Waits until REST shows `expected` and SOAP and the hub agree with it. */
  const agreed = async (what: string, id: string, uuid: string, expected: Seen): Promise<void> => {
    let last: unknown;
    try {
      await until(what, async () => {
        const seen = (last = await views(id, uuid));
        return seen.rest.online === expected.online && JSON.stringify(seen.rest.connections) === JSON.stringify(expected.connections) && seen.soap === expected.online && seen.hub === expected.online;
      }, 15_000);
    } catch (err) {
      throw new Error(`${(err as Error).message}; last seen ${JSON.stringify(last)}, expected ${JSON.stringify(expected)}`);
    }
  };

  /** REST, SOAP and the hub keep saying `expected` for `ms` while the monitor sweeps. */
  const holds = async (id: string, uuid: string, expected: Seen, ms = SWEEPS_MS): Promise<void> => {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const seen = await views(id, uuid);
      assert.deepEqual(seen, { rest: expected, soap: expected.online, hub: expected.online }, `while the monitor sweeps (${Math.round((end - Date.now()) / 100) / 10} s left)`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  /**
   * Samples SOAP, REST, SOAP until REST shows `expected`: at every sample where SOAP held still, SOAP
   * says what REST says (no window where one calls the device connected and the other not).
   */
  const agreesOnTheWay = async (what: string, id: string, uuid: string, expected: Seen): Promise<void> => {
    await until(what, async () => {
      const soapBefore = await soapConnected(uuid);
      const seen = await rest(id);
      const soapAfter = await soapConnected(uuid);
      if (soapBefore === soapAfter) assert.equal(soapAfter, seen.online, `SOAP and REST disagree on the way (REST ${JSON.stringify(seen)})`);
      return seen.online === expected.online && JSON.stringify(seen.connections) === JSON.stringify(expected.connections);
    }, 15_000);
    await agreed(what, id, uuid, expected);
  };

  const ciraOptions = (port: number, ca: string) => ({ host: '127.0.0.1', port, username: MPS.username, password: MPS.password, ca, keepAliveSeconds: 1, reconnectMs: 60_000 });

  before(async () => {
    gw = await startTestGateway({
      plugins: ['rest-api', 'remote-monitor', 'soap-mps', 'scan-hub', 'cira'],
      logs,
      overrides: mergeConfig(SIM_AMT_SETTINGS, {
        plugins: {
          'remote-monitor': { options: { intervalSeconds: 1, missedProbesOffline: MISSED_PROBES_OFFLINE, probe: { rmcpWindowMs: 200, connectTimeoutMs: 300 } } },
          'soap-mps': { options: { port: 0 } },
          cira: { options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 5, forwardSettleMs: 50 } },
        },
      }),
    });
    token = await gw.login();
    await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
    assert.equal((await gw.request('POST', '/api/cira/accounts', { token, body: MPS })).status, 201);
    const ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
    post = soapPoster(soapServiceUrl(logs).url, basicHeader(ADMIN.username, ADMIN.password));
    hub = await connectSignalR(gw.url, token);
    cira = ciraOptions(ciraPort(logs), ca);
    bothFleet = await startFleet({ count: 2, base: BOTH_BASE, rmcpPort: SIM_RMCP_PORT, seed: 'presence-both', cira, ciraLan: true });
  });
  after(async () => {
    await hub?.connection.stop();
    for (const fleet of ciraFleets) await fleet.stop();
    await bothFleet?.stop();
    await gw?.cleanup();
  });

  /** A tunnel-only device that dials in now: new to the gateway, so the monitor's first sweeps of it run during the test. */
  const dialIn = async (n: number): Promise<SimDevice> => {
    const fleet = await startFleet({ count: 1, base: CIRA_BASE.replace(/\d+$/, String(n)), rmcpPort: 0, seed: `presence-cira-${n}`, cira });
    ciraFleets.push(fleet);
    return fleet.devices[0]!;
  };

  /** A tunnel-only device, up and agreed online over CIRA alone through several monitor sweeps. */
  const tunnelled = async (device: SimDevice): Promise<string> => {
    await device.cira!.waitFor('connected');
    const found = await until('the tunnelled device is listed', () => listed(device.config.uuid));
    await agreed('online through its tunnel', found.id, device.config.uuid, { online: true, connections: ['cira'] });
    // Nothing answers at its LAN address: the monitor's failed probes never make it a LAN device.
    await holds(found.id, device.config.uuid, { online: true, connections: ['cira'] });
    return found.id;
  };

  /** A device answering on the LAN and holding a tunnel, found by a scan. */
  const onBothPaths = async (device: SimDevice): Promise<string> => {
    await device.cira!.waitFor('connected');
    await until('the tunnel is listed', () => listed(device.config.uuid));
    const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: device.address })).id);
    assert.equal(scan.found, 1);
    const found = (await listed(device.config.uuid))!;
    await agreed('online on both paths', found.id, device.config.uuid, { online: true, connections: ['lan', 'cira'] });
    await holds(found.id, device.config.uuid, { online: true, connections: ['lan', 'cira'] }, 2_500);
    return found.id;
  };

  test('a tunnel that drops during the monitor\'s first sweeps of its device does not leave it online on the LAN', async () => {
    const device = await dialIn(1);
    await device.cira!.waitFor('connected');
    const found = await until('the tunnelled device is listed', () => listed(device.config.uuid));
    await agreed('online through its tunnel', found.id, device.config.uuid, { online: true, connections: ['cira'] });
    device.cira!.vanish();
    await agreed('offline once the tunnel is gone', found.id, device.config.uuid, { online: false, connections: [] });
    await holds(found.id, device.config.uuid, { online: false, connections: [] });
    assert.deepEqual(hubSays(found.id), [true, false], 'one change each way, no flap');
  });

  test('a tunnel that drops takes its device offline and the monitor never brings it back as a LAN device', async () => {
    const device = await dialIn(2);
    const id = await tunnelled(device);
    device.cira!.vanish();
    await agreed('offline once the tunnel is gone', id, device.config.uuid, { online: false, connections: [] });
    await holds(id, device.config.uuid, { online: false, connections: [] });
    assert.deepEqual(hubSays(id), [true, false], 'one change each way, no flap');
  });

  test('a silent tunnel (keep-alive timeout) takes its device offline for good', async () => {
    const device = await dialIn(3);
    const id = await tunnelled(device);
    device.cira!.setFault('silent');
    await agreed('offline once the silent tunnel is dropped', id, device.config.uuid, { online: false, connections: [] });
    await holds(id, device.config.uuid, { online: false, connections: [] });
    assert.deepEqual(hubSays(id), [true, false], 'one change each way, no flap');
  });

  test('a device on both paths that loses its tunnel stays online on the LAN, then goes offline when the LAN stops answering', async () => {
    const device = bothFleet.devices[0]!;
    const id = await onBothPaths(device);
    await device.cira!.stop();
    await agreed('online on the LAN alone', id, device.config.uuid, { online: true, connections: ['lan'] });
    await holds(id, device.config.uuid, { online: true, connections: ['lan'] }, 2_500);
    await device.leaveLan();
    await agreesOnTheWay('offline once the monitor misses the LAN answers', id, device.config.uuid, { online: false, connections: [] });
    await holds(id, device.config.uuid, { online: false, connections: [] });
    assert.deepEqual(hubSays(id), [true, false]);
  });

  test('a device on both paths that stops answering on the LAN stays online through its tunnel, then goes offline with it', async () => {
    const device = bothFleet.devices[1]!;
    const id = await onBothPaths(device);
    await device.leaveLan();
    await agreesOnTheWay('online through the tunnel alone', id, device.config.uuid, { online: true, connections: ['cira'] });
    await holds(id, device.config.uuid, { online: true, connections: ['cira'] });
    device.cira!.vanish();
    await agreed('offline once the tunnel is gone too', id, device.config.uuid, { online: false, connections: [] });
    await holds(id, device.config.uuid, { online: false, connections: [] });
    assert.deepEqual(hubSays(id), [true, false]);
  });

  test('every event the hub sent meanwhile held its documented shape', async () => {
    assert.ok(hub.received.some((r) => r.target === 'DeviceStatusChanged'));
    await assertHubShapes(gw.url, hub.received);
  });
});
