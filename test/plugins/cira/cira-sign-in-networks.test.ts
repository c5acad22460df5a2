/**
 * CIRA devices and the rules every device path shares: two devices behind one NAT address (their
 * tunnels come from the same address) keep separate sign-in memories, reads after tunnel-up count
 * against that memory, and allowedNetworks bounds local-network I/O only, so a tunnelled device whose
 * address is outside them is managed (and shown online by the monitor) through its tunnel while a LAN
 * device outside gets 422.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet } from '../../sim/index.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import { ciraPort } from './gateway-cira-helpers.js';
import { until } from '../../helpers/poll.js';

const MPS = { username: 'mps-nat', password: 'Mps-P@ssw0rd-nat' };
/** Both CIRA devices dial in from this one address, as two machines behind one NAT. */
const NAT = '127.43.1.1';
const LAN = '127.43.2.1';
/** Neither address above is inside. */
const ALLOWED = ['127.43.9.0/24'];

interface SignInView {
  consecutiveFailures: number;
  refused: Array<{ credentialId: string }>;
  workingCredentialId: string | null;
}

let gw: TestGateway;
let token: string;
let credentialId: string;
let lan: Fleet;
let good: Fleet;
let refusing: Fleet;
const logs: string[] = [];

const devices = async (): Promise<Device[]> => (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];
const signIn = async (id: string): Promise<SignInView> => (await (await gw.request('GET', `/api/devices/${id}/sign-in`, { token })).json()) as SignInView;
const problem = async (res: Response) => ((await res.json()) as { type: string }).type.replace(/^.*:/, '');

before(async () => {
  // The LAN device is found by a scan while the site allows it; then the site narrows its networks.
  lan = await startFleet({ count: 1, base: LAN, rmcpPort: 0, seed: 'nat-lan' });
  const first = await startTestGateway({ plugins: ['rest-api'], overrides: SIM_AMT_SETTINGS });
  const firstToken = await first.login();
  credentialId = await createCredential(first, firstToken, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  const scan = await waitForScan(first, firstToken, (await startScan(first, firstToken, { range: LAN, timeoutMs: 2000 })).id);
  assert.equal(scan.found, 1);
  await first.stop();
  gw = await startTestGateway({
    plugins: ['rest-api', 'power-mgmt', 'remote-monitor', 'cira'],
    dataDir: first.dataDir,
    masterKey: first.masterKey,
    logs,
    overrides: mergeConfig(SIM_AMT_SETTINGS, {
      plugins: { devices: { options: { allowedNetworks: ALLOWED } }, cira: { enable: true, options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 3, forwardSettleMs: 50 } } },
    }),
  });
  token = await gw.login();
  assert.equal((await gw.request('POST', '/api/cira/accounts', { token, body: MPS })).status, 201);
  const ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
  const cira = { host: '127.0.0.1', port: ciraPort(logs), username: MPS.username, password: MPS.password, ca, keepAliveSeconds: 1, reconnectMs: 0 };
  good = await startFleet({ count: 1, base: NAT, rmcpPort: 0, seed: 'nat-good', cira });
  // Same address, another machine: its AMT password is not the stored credential's.
  refusing = await startFleet({ count: 1, base: NAT, rmcpPort: 0, seed: 'nat-refusing', password: 'Other-P@ss2', cira });
  lan.devices[0]!.resetCounters();
});

after(async () => {
  await good?.stop();
  await refusing?.stop();
  await lan?.stop();
  await gw?.cleanup();
});

test('two CIRA devices behind one NAT address keep separate sign-in memories, and reads after tunnel-up count against them', async () => {
  const goodUuid = good.devices[0]!.config.uuid;
  const refusingUuid = refusing.devices[0]!.config.uuid;
  const [goodDevice, refusingDevice] = await until('both tunnelled devices are read', async () => {
    const all = await devices();
    const a = all.find((d) => d.uuid === goodUuid);
    const b = all.find((d) => d.uuid === refusingUuid);
    // Device access records the sign-in (authStatus) before the read's patch (hostname) lands: wait for both.
    return a?.authStatus === 'ok' && a.hostname && b?.authStatus === 'unauthorized' ? ([a, b] as const) : undefined;
  });
  assert.equal(goodDevice.ipAddress, NAT);
  assert.equal(refusingDevice.ipAddress, NAT);
  assert.notEqual(goodDevice.id, refusingDevice.id);
  assert.equal(goodDevice.hostname, good.devices[0]!.config.hostname, 'read through the tunnel although its address is outside the allowed networks');

  // The read of the refusing device is in its own memory, not in the other's (nor the NAT address's).
  const refusedView = await signIn(refusingDevice.id);
  assert.deepEqual(refusedView.refused.map((r) => r.credentialId), [credentialId]);
  assert.ok(refusedView.consecutiveFailures > 0);
  const goodView = await signIn(goodDevice.id);
  assert.deepEqual(goodView.refused, []);
  assert.equal(goodView.consecutiveFailures, 0);
  assert.equal(goodView.workingCredentialId, credentialId);

  // The memory holds the refused credential back: the device sees no further sign-in.
  const attempts = refusing.devices[0]!.counters().authAttempts;
  const power = await gw.request('GET', `/api/power/${refusingDevice.id}`, { token });
  assert.equal(power.status, 502);
  assert.equal(await problem(power), 'GW_ERR_DEVICE_UNAUTHORIZED');
  assert.equal(refusing.devices[0]!.counters().authAttempts, attempts);

  // The other machine behind the same address is managed as usual.
  const read = await gw.request('GET', `/api/power/${goodDevice.id}`, { token });
  assert.equal(read.status, 200, await read.clone().text());
});

test('allowedNetworks bounds local-network I/O only: a tunnelled device outside them is powered through its tunnel, a LAN device outside gets 422', async () => {
  const all = await devices();
  const tunnelled = all.find((d) => d.uuid === good.devices[0]!.config.uuid)!;
  assert.deepEqual(tunnelled.connections, ['cira']);
  const off = await gw.request('POST', `/api/power/${tunnelled.id}`, { token, body: { action: 'off' } });
  assert.equal(off.status, 200, await off.clone().text());
  assert.equal(good.devices[0]!.state.powerState, 8);

  // Diagnostics of a tunnelled device go through its tunnel too; the address both share names neither.
  assert.equal((await gw.request('GET', `/api/test/test-wsman/${NAT}`, { token })).status, 409);
  const check = await gw.request('GET', `/api/test/test-wsman/${tunnelled.id}`, { token });
  assert.equal(check.status, 200, await check.clone().text());
  assert.equal(((await check.json()) as { reachable: boolean }).reachable, true);

  const lanDevice = all.find((d) => d.ipAddress === LAN)!;
  assert.ok(!lanDevice.connections?.includes('cira'));
  // The monitor: the tunnelled device is online by its tunnel, only the LAN device is left unprobed.
  const online = (await (await gw.request('GET', '/api/monitor/online', { token })).json()) as Array<{ deviceId: string; online: boolean; notMonitored?: string }>;
  const entry = online.find((e) => e.deviceId === tunnelled.id)!;
  assert.equal(entry.online, true);
  assert.equal(entry.notMonitored, undefined);
  assert.equal(online.find((e) => e.deviceId === lanDevice.id)!.notMonitored, 'outside-allowed-networks');
  const refused = await gw.request('GET', `/api/power/${lanDevice.id}`, { token });
  assert.equal(refused.status, 422);
  assert.equal(await problem(refused), 'GW_ERR_ADDRESS_NOT_ALLOWED');
  assert.equal((await gw.request('GET', `/api/test/test-wsman/${LAN}`, { token })).status, 422);
  const counters = lan.devices[0]!.counters();
  assert.deepEqual({ requests: counters.requests, connections: counters.connections }, { requests: 0, connections: 0 });
});

test('a dropped tunnel takes its device offline by replacing it in the registry, whose frozen devices are never changed in place', async () => {
  // The integration replaces devices through the registry, never changes one in place: a write would throw here.
  const device = (await devices()).find((d) => d.uuid === good.devices[0]!.config.uuid)!;
  assert.deepEqual(device.connections, ['cira']);
  const drop = await gw.request('DELETE', `/api/cira/connections/${device.id}`, { token });
  assert.equal(drop.status, 204);
  const after = await until('the dropped device goes offline', async () => {
    const found = (await devices()).find((d) => d.id === device.id);
    return found && !found.online ? found : undefined;
  });
  assert.deepEqual(after.connections, []);
});
