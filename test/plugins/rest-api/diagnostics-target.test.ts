/**
 * The target of the diagnostics routes: several CIRA devices behind one NAT share their address, so
 * an address they share is refused as ambiguous (naming them, never picking one), while a device id
 * or UUID always selects exactly one device, and an address of one device still works.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet } from '../../sim/index.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import { ciraPort } from '../cira/gateway-cira-helpers.js';
import { until } from '../../helpers/poll.js';

const MPS = { username: 'mps-target', password: 'Mps-T@rget-P@ss' };
const DEVICE_PASSWORD = 'P@ssw0rd1';
/** Both CIRA devices dial in from this one address, as two machines behind one NAT. */
const NAT = '127.147.5.1';
const LAN = '127.147.6.1';

interface WsmanView {
  ipAddress: string;
  deviceId?: string;
  reachable: boolean;
  authenticated: boolean;
  hostname: string | null;
}
interface Problem {
  type: string;
  status: number;
  detail: string;
  errors?: Array<{ path: string; message: string }>;
}

describe('diagnostics targets shared by several tunnels', () => {
  let gw: TestGateway;
  let token: string;
  let natA: Fleet;
  let natB: Fleet;
  let lan: Fleet;
  let a: Device;
  let b: Device;
  let lanDevice: Device;
  const logs: string[] = [];

  const get = (path: string) => gw.request('GET', path, { token });
  const codeOf = (problem: Problem) => problem.type.replace(/^.*:/, '');

  before(async () => {
    gw = await startTestGateway({
      plugins: ['rest-api', 'cira'],
      logs,
      overrides: mergeConfig(SIM_AMT_SETTINGS, {
        plugins: { cira: { options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 3, forwardSettleMs: 50 } } },
      }),
    });
    token = await gw.login();
    await createCredential(gw, token, { name: 'fleet', username: 'admin', password: DEVICE_PASSWORD, isDefault: true });
    assert.equal((await gw.request('POST', '/api/cira/accounts', { token, body: MPS })).status, 201);
    const ca = ((await (await get('/api/cira/certificate')).json()) as { pem: string }).pem;
    const cira = { host: '127.0.0.1', port: ciraPort(logs), username: MPS.username, password: MPS.password, ca, keepAliveSeconds: 1, reconnectMs: 0 };
    natA = await startFleet({ count: 1, base: NAT, rmcpPort: 0, seed: 'target-nat-a', hostnamePrefix: 'nat-a', cira });
    natB = await startFleet({ count: 1, base: NAT, rmcpPort: 0, seed: 'target-nat-b', hostnamePrefix: 'nat-b', cira });
    lan = await startFleet({ count: 1, base: LAN, rmcpPort: 0, seed: 'target-lan', hostnamePrefix: 'lan' });
    const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: LAN, timeoutMs: 2000 })).id);
    assert.equal(scan.found, 1);
    [a, b] = await until('both tunnelled devices are listed', async () => {
      const all = (await (await get('/api/devices')).json()) as Device[];
      const found = [natA, natB].map((f) => all.find((d) => d.uuid === f.devices[0]!.config.uuid));
      return found.every((d) => d !== undefined) ? (found as Device[]) : undefined;
    });
    lanDevice = ((await (await get('/api/devices')).json()) as Device[]).find((d) => d.ipAddress === LAN)!;
    assert.ok(lanDevice);
  });
  after(async () => {
    await natA?.stop();
    await natB?.stop();
    await lan?.stop();
    await gw?.cleanup();
  });

  test('both tunnelled devices have the NAT address', () => {
    assert.equal(a.ipAddress, NAT);
    assert.equal(b.ipAddress, NAT);
    assert.notEqual(a.id, b.id);
  });

  test('test-wsman on the shared address is 409 GW_ERR_TARGET_AMBIGUOUS naming both devices, and checks neither', async () => {
    const before = [natA, natB].map((f) => f.devices[0]!.cira!.counters.channelsOpened);
    const res = await get(`/api/test/test-wsman/${NAT}`);
    const text = await res.text();
    assert.equal(res.status, 409, text);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    const problem = JSON.parse(text) as Problem;
    assert.equal(codeOf(problem), 'GW_ERR_TARGET_AMBIGUOUS');
    assert.match(problem.detail, /device id or UUID/);
    for (const device of [a, b]) {
      assert.ok(problem.detail.includes(device.id), `the detail names ${device.id}`);
      assert.ok(problem.errors?.some((e) => e.path === 'params.ip_address' && e.message.includes(device.id)), `the errors name ${device.id}`);
    }
    assert.ok(!text.includes(DEVICE_PASSWORD) && !text.includes(MPS.password), 'no secret in the problem');
    assert.deepEqual([natA, natB].map((f) => f.devices[0]!.cira!.counters.channelsOpened), before, 'no tunnel was used');
  });

  test('test-credential with the shared address is refused the same way', async () => {
    const res = await get(`/api/test/test-credential?ip=${NAT}`);
    const problem = (await res.json()) as Problem;
    assert.equal(res.status, 409);
    assert.equal(codeOf(problem), 'GW_ERR_TARGET_AMBIGUOUS');
    assert.ok(problem.errors?.some((e) => e.path === 'query.ip' && e.message.includes(a.id)));
  });

  test('a device id selects exactly that device, through its own tunnel', async () => {
    for (const [device, fleet] of [[a, natA], [b, natB]] as const) {
      const other = fleet === natA ? natB : natA;
      const otherRequests = other.devices[0]!.counters().requests;
      const ownRequests = fleet.devices[0]!.counters().requests;
      const res = await get(`/api/test/test-wsman/${device.id}`);
      assert.equal(res.status, 200, await res.clone().text());
      const view = (await res.json()) as WsmanView;
      assert.equal(view.deviceId, device.id);
      assert.equal(view.ipAddress, NAT);
      assert.equal(view.authenticated, true);
      assert.equal(view.hostname, fleet.devices[0]!.config.hostname);
      assert.ok(fleet.devices[0]!.counters().requests > ownRequests, 'the named device answered');
      assert.equal(other.devices[0]!.counters().requests, otherRequests, 'the other device behind the NAT saw nothing');
    }
  });

  test('a device UUID, in any case, selects exactly that device', async () => {
    const uuid = natB.devices[0]!.config.uuid.toUpperCase();
    const res = await get(`/api/test/test-wsman/${uuid}`);
    assert.equal(res.status, 200, await res.clone().text());
    const view = (await res.json()) as WsmanView;
    assert.equal(view.deviceId, b.id);
    assert.equal(view.hostname, natB.devices[0]!.config.hostname);

    const credential = await get(`/api/test/test-credential?ip=${a.id}`);
    assert.equal(credential.status, 200, await credential.clone().text());
    const checked = (await credential.json()) as { device: { deviceId?: string; ipAddress: string; authenticated: boolean } };
    assert.deepEqual(checked.device.deviceId, a.id);
    assert.equal(checked.device.authenticated, true);
  });

  test('an unknown UUID is 404 and a malformed target 400', async () => {
    const unknown = await get('/api/test/test-wsman/00000000-0000-4000-8000-00000000beef');
    assert.equal(unknown.status, 404);
    assert.equal(codeOf((await unknown.json()) as Problem), 'GW_ERR_DEVICE_NOT_FOUND');
    assert.equal((await get('/api/test/test-wsman/not-an-address')).status, 400);
  });

  test('an address only one device has still selects it', async () => {
    const res = await get(`/api/test/test-wsman/${LAN}`);
    assert.equal(res.status, 200, await res.clone().text());
    const view = (await res.json()) as WsmanView;
    assert.equal(view.deviceId, lanDevice.id);
    assert.equal(view.hostname, lan.devices[0]!.config.hostname);
  });
});
