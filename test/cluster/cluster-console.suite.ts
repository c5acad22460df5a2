/**
 * Extra suite (`npm run test:cluster`): the remote console and revocations on three gateway
 * processes on one real PostgreSQL. A CIRA device's console (SOL, IDE-R) is opened, used, listed and
 * ended through instances that do not hold its tunnel: the viewer's WebSocket is passed to the one
 * that does. A sign-out, a password change or a permission change on one instance ends what the user
 * holds on the others at once: console sessions, tickets, hub connections, the SOAP Basic cache.
 * Skips without PostgreSQL unless AMTGW_REQUIRE_POSTGRES=1.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { WebSocket } from 'ws';
import { startFleet, type Fleet } from '../sim/index.js';
import type { SimDevice } from '../sim/sim-device.js';
import { SimCiraClient } from '../sim/cira-client.js';
import { mergeConfig } from '../../core/config/load-config.js';
import { SIM_AMT_SETTINGS, SIM_RMCP_PORT } from '../helpers/scan-helpers.js';
import { SolClient } from '../helpers/sol-client.js';
import { writeBootIso, type BuiltImage } from '../helpers/boot-images.js';
import { connectSignalR } from '../plugins/scan-hub/hub-test-kit.js';
import { basicHeader, envelope, soapPoster, soapServiceUrl } from '../plugins/soap-mps/soap-test-gateway.js';
import { findPostgresBin, skipWithoutPostgres, startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { until } from '../helpers/poll.js';
import { adminToken, call, ciraPortOf, clusterMasterKey, startInstance, stopInstance, untilCiraAccountKnown, type ClusterInstanceProcess } from './cluster-kit.js';

const MPS = { username: 'mps-console', password: 'Mps-P@ssw0rd-console' };
const PASSWORD = 'Viewer-P@ssw0rd-1';
/** No instance of this suite goes down: a heartbeat late on a loaded machine must not be taken for a crash. */
const NO_FAILOVER_DOWN_AFTER_SECONDS = 15;


/** Opens a ticket's WebSocket at `instance`; `attach` runs before it opens. Rejects with the status of a refused upgrade. */
function relay(instance: ClusterInstanceProcess, url: string, attach?: (ws: WebSocket) => void): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(instance.url.replace(/^http/, 'ws') + url);
    attach?.(ws);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
}

const closed = (ws: WebSocket, waitMs: number): Promise<number | null> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), waitMs);
    ws.once('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });

describe('the remote console and revocations across three gateway instances', () => {
  let server: PostgresServer | undefined;
  let instances: ClusterInstanceProcess[] = [];
  let token = '';
  let fleet: Fleet | undefined;
  let sim: SimDevice;
  let deviceId = '';
  let dir = '';
  let iso: BuiltImage;

  before(async () => {
    if (!findPostgresBin()) return;
    server = await startPostgres();
    const storeUrl = await server.createDatabase();
    const masterKey = clusterMasterKey();
    dir = await mkdtemp(join(tmpdir(), 'amtgw-cluster-console-'));
    iso = await writeBootIso(join(dir, 'boot.iso'), 1024 * 1024);
    const config = mergeConfig(SIM_AMT_SETTINGS, {
      plugins: {
        'soap-mps': { enable: true, options: { port: 0 } },
        'remote-monitor': { enable: false },
        cira: { enable: true, options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 3, forwardSettleMs: 50 } },
        redirection: { enable: true, options: { userCheckMs: 60_000 } },
        images: { enable: true, options: { directory: join(dir, 'images') } },
        'power-mgmt': { enable: true },
      },
    });
    instances = await Promise.all(['gw-a', 'gw-b', 'gw-c'].map((name) => startInstance(name, { storeUrl, masterKey, config, downAfterSeconds: NO_FAILOVER_DOWN_AFTER_SECONDS })));
    token = await adminToken(instances[0]!.url);
    assert.equal((await call(instances[0]!.url, token, 'POST', '/api/credentials', { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true })).status, 201);
    assert.equal((await call(instances[0]!.url, token, 'POST', '/api/cira/accounts', MPS)).status, 201);
    await untilCiraAccountKnown(instances, token, MPS.username);
    const holder = instances[2]!;
    const ca = (await call<{ pem: string }>(holder.url, token, 'GET', '/api/cira/certificate')).body.pem;
    fleet = await startFleet({ count: 1, base: '127.65.0.1', rmcpPort: 0, seed: 'cluster-console', provisioningModes: [1], cira: { host: '127.0.0.1', port: ciraPortOf(holder), ...MPS, ca, keepAliveSeconds: 1, reconnectMs: 0 } });
    sim = fleet.devices[0]!;
    await sim.cira!.waitFor('connected');
    deviceId = await until('the tunnelled device is read', async () => {
      const listed = await call<Array<{ id: string; uuid: string | null; authStatus: string }>>(instances[0]!.url, token, 'GET', '/api/devices');
      return listed.body.find((d) => d.uuid === sim.config.uuid && d.authStatus === 'ok')?.id;
    }, 30_000);
  });
  after(async () => {
    await fleet?.stop().catch(() => undefined);
    for (const instance of instances) await stopInstance(instance, 'SIGKILL').catch(() => undefined);
    await server?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("a CIRA device's serial console works through an instance that does not hold its tunnel: listed and ended from a third", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const [a, , c] = instances as [ClusterInstanceProcess, ClusterInstanceProcess, ClusterInstanceProcess];
    const ticket = await call<{ id: string; url: string }>(a.url, token, 'POST', `/api/redirection/${deviceId}/sessions`, { mode: 'sol' });
    assert.equal(ticket.status, 201, JSON.stringify(ticket.body));
    let console!: SolClient;
    const ws = await relay(a, ticket.body.url, (socket) => void (console = new SolClient(socket)));
    await console.waitFor(`${sim.state.hostname} BIOS`);
    console.type('through gw-a\r');
    await console.waitFor('through gw-a\r\n> ');
    const listed = await until('gw-b lists it within a second', async () => {
      const res = await call<Array<{ id: string; mode: string; instance?: string }>>(instances[1]!.url, token, 'GET', '/api/redirection/sessions');
      return res.body.length > 0 ? res : undefined;
    }, 1000);
    assert.deepEqual(listed.body.map((s) => [s.id, s.mode, s.instance]), [[ticket.body.id, 'sol', 'gw-c']]);
    const closing = closed(ws, 5000);
    assert.equal((await call(a.url, token, 'DELETE', `/api/redirection/sessions/${ticket.body.id}`)).status, 204);
    assert.equal(await closing, 4003, 'ended by an operator');
    await until('the slot is free everywhere', async () => (await call<unknown[]>(c.url, token, 'GET', '/api/redirection/sessions')).body.length === 0, 2000);
  });

  test('an IDE-R session of a CIRA device is opened, listed and deleted through instances that do not hold its tunnel', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const [a, b] = instances as [ClusterInstanceProcess, ClusterInstanceProcess];
    const uploaded = await fetch(`${a.url}/api/images?name=cluster-boot&kind=cd`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' }, body: await readFile(iso.path) });
    assert.equal(uploaded.status, 201, await uploaded.clone().text());
    const imageId = ((await uploaded.json()) as { id: string }).id;
    await until('gw-c has the image', async () => (await call<Array<{ id: string; available: boolean }>>(instances[2]!.url, token, 'GET', '/api/images')).body.some((i) => i.id === imageId && i.available), 2000);
    const opened = await call<{ id: string }>(a.url, token, 'POST', `/api/redirection/${deviceId}/sessions`, { mode: 'ider', cd: imageId });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    await until('drives attached', () => sim.redirection.iderHost.link?.attached === 'reboot');
    const listed = await until('gw-b lists it within a second', async () => {
      const res = await call<Array<{ id: string; mode: string; instance?: string }>>(b.url, token, 'GET', '/api/redirection/sessions');
      return res.body.length > 0 ? res : undefined;
    }, 1000);
    assert.deepEqual(listed.body.map((s) => [s.id, s.mode, s.instance]), [[opened.body.id, 'ider', 'gw-c']]);
    // The image is in use on gw-c: a delete through gw-a is refused.
    assert.equal((await call(a.url, token, 'DELETE', `/api/images/${imageId}`)).status, 409);
    assert.equal((await call(b.url, token, 'DELETE', `/api/redirection/sessions/${opened.body.id}`)).status, 204);
    await until('the device session closed', () => !sim.redirection.open.has('ider'));
    await until('no session listed anywhere', async () => {
      const lists = await Promise.all(instances.map((i) => call<unknown[]>(i.url, token, 'GET', '/api/redirection/sessions')));
      return lists.every((l) => l.body.length === 0);
    }, 2000);
  });

  test('signing out on one instance ends that sign-in\'s console session, ticket and hub connection on the others at once', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const [a, b, c] = instances as [ClusterInstanceProcess, ClusterInstanceProcess, ClusterInstanceProcess];
    assert.equal((await call(a.url, token, 'POST', '/api/users', { username: 'viewer', password: PASSWORD, permissions: ['remote:connect', 'devices:read'] })).status, 201);
    const login = async (instance: ClusterInstanceProcess) => {
      const res = await fetch(`${instance.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'viewer', password: PASSWORD }) });
      assert.equal(res.status, 200);
      return ((await res.json()) as { token: string }).token;
    };
    const viewer = await until('the viewer signs in on gw-b', () => login(b).catch(() => undefined), 2000);
    const ticket = await call<{ url: string }>(b.url, viewer, 'POST', `/api/redirection/${deviceId}/sessions`, { mode: 'sol' });
    assert.equal(ticket.status, 201, JSON.stringify(ticket.body));
    const ws = await relay(b, ticket.body.url);
    const unused = await call<{ url: string }>(b.url, viewer, 'POST', `/api/redirection/${deviceId}/sessions`, { mode: 'kvm' });
    assert.equal(unused.status, 201);
    const hub = await connectSignalR(a.url, viewer);
    const hubClosed = new Promise<void>((resolve) => hub.connection.onclose(() => resolve()));
    const sessionClosing = closed(ws, 5000);
    const started = Date.now();
    assert.equal((await call(c.url, viewer, 'POST', '/api/auth/logout')).status, 204);
    assert.equal(await sessionClosing, 4007, 'the session on gw-c ended: its sign-in was revoked');
    await Promise.race([hubClosed, new Promise((_, reject) => setTimeout(() => reject(new Error('the hub connection on gw-a stayed open')), 3000))]);
    assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
    await assert.rejects(relay(a, unused.body.url), (err: { status?: number }) => err.status === 401, 'the signed-out token\'s unused ticket is gone');
  });

  test('a password change on one instance ends the SOAP Basic cache of the others at once', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const [a, b] = instances as [ClusterInstanceProcess, ClusterInstanceProcess];
    assert.equal((await call(a.url, token, 'POST', '/api/users', { username: 'soap-user', password: PASSWORD, permissions: ['mps:read'] })).status, 201);
    const lines = b.process.output().split('\n').filter((l) => l.startsWith('{'));
    const post = soapPoster(soapServiceUrl(lines).url, basicHeader('soap-user', PASSWORD));
    const ask = envelope('<m:EnumerateConnectedMachines/>');
    const first = await until('gw-b knows the user', async () => {
      const res = await post(ask);
      return res.status === 200 ? res : undefined;
    }, 2000);
    assert.equal(first.status, 200, first.text);
    assert.equal((await post(ask)).status, 200, 'remembered for 30 s');
    assert.equal((await call(a.url, token, 'PUT', '/api/users/soap-user', { password: 'Another-P@ssw0rd-2' })).status, 200);
    await until('the old password is refused on gw-b at once', async () => (await post(ask)).status === 401, 1000);
  });

  test('a device that dialled two instances at once ends with one tunnel, the newer, and is managed through the third', async (t) => {
    if (skipWithoutPostgres(t)) return;
    const [a, b] = instances as [ClusterInstanceProcess, ClusterInstanceProcess];
    const first = sim.cira!;
    assert.equal(first.status, 'connected', 'the device holds its tunnel to gw-c');
    const ca = (await call<{ pem: string }>(b.url, token, 'GET', '/api/cira/certificate')).body.pem;
    // The same device dials gw-b too (a redial that came before its old connection's loss was noticed).
    const second = new SimCiraClient(sim.state, { ...first.options, port: ciraPortOf(b), ca, reconnectMs: 0 });
    try {
      second.start();
      await second.waitFor('connected');
      await until('gw-c dropped its older tunnel', () => first.status === 'disconnected', 10_000);
      const listed = await until('one tunnel, on gw-b, listed everywhere', async () => {
        const lists = await Promise.all(instances.map((i) => call<Array<{ deviceId: string; instance: string }>>(i.url, token, 'GET', '/api/cira/connections')));
        const ours = lists.map((l) => l.body.filter((c) => c.deviceId === deviceId).map((c) => c.instance));
        return ours.every((o) => o.length === 1 && o[0] === 'gw-b') ? ours : undefined;
      }, 5000);
      assert.equal(listed.length, 3);
      const read = await call<{ powerState?: number }>(a.url, token, 'GET', `/api/power/${deviceId}`);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      const devices = await call<Array<{ id: string; connections?: string[] }>>(a.url, token, 'GET', '/api/devices');
      assert.ok(devices.body.find((d) => d.id === deviceId)?.connections?.includes('cira'), 'the device keeps its cira connection');
    } finally {
      await second.stop();
    }
  });

  test("wrong consent codes for a LAN device spread over three instances get no more than through one: its owner counts them", async (t) => {
    if (skipWithoutPostgres(t)) return;
    const lan = await startFleet({ count: 1, base: '127.65.1.1', rmcpPort: SIM_RMCP_PORT, seed: 'cluster-consent', provisioningModes: [1] });
    try {
      const scan = await call<{ id: string }>(instances[0]!.url, token, 'POST', '/api/scan/start', { range: '127.65.1.1/32', timeoutMs: 1000 });
      assert.equal(scan.status, 202);
      const device = lan.devices[0]!;
      const id = await until('the LAN device is read everywhere', async () => {
        const lists = await Promise.all(instances.map((i) => call<Array<{ id: string; ipAddress: string; authStatus: string }>>(i.url, token, 'GET', '/api/devices')));
        const found = lists.map((l) => l.body.find((d) => d.ipAddress === device.address && d.authStatus === 'ok')?.id);
        return found.every((f) => f !== undefined && f === found[0]) ? found[0] : undefined;
      }, 20_000);
      assert.equal((await call(instances[0]!.url, token, 'PUT', `/api/redirection/${id}/features`, { userConsent: 'kvm' })).status, 200);
      assert.equal((await call(instances[1]!.url, token, 'POST', `/api/redirection/${id}/consent`)).status, 202);
      const code = device.redirection.consentCode!;
      const wrong = code === '000000' ? '000001' : '000000';
      const before = device.redirection.counters.codeAttempts;
      // One guess at each instance at a time, ten times over.
      for (let round = 0; round < 10; round++) {
        const answers = await Promise.all(instances.map((i) => call(i.url, token, 'POST', `/api/redirection/${id}/consent/code`, { code: wrong })));
        assert.ok(answers.every((r) => r.status === 422 || r.status === 429), JSON.stringify(answers.map((r) => r.status)));
        await new Promise((r) => setTimeout(r, 50));
      }
      // maxWrongCodes is 5 per device and user: three instances counting apart would let 15 through.
      assert.ok(device.redirection.counters.codeAttempts - before <= 5, `codes the device checked: ${device.redirection.counters.codeAttempts - before}`);
    } finally {
      await lan.stop();
    }
  });
});
