/**
 * A device UUID belongs to the MPS account it first came in with: a tunnel claiming it under another
 * account is refused (and logged) while the device's own tunnel stays; an operator with cira:manage
 * can rebind it; and an account limited to UUIDs brings no other.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet } from '../../sim/index.js';
import type { TestGateway } from '../../helpers/gateway-harness.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import type { CiraConnection } from '../../../plugins/cira/api.js';
import { startCiraGateway } from './gateway-cira-helpers.js';
import { until } from '../../helpers/poll.js';

const ACCOUNT_A = { username: 'mps-site-a', password: 'Mps-P@ssw0rd-a' };
const ACCOUNT_B = { username: 'mps-site-b', password: 'Mps-P@ssw0rd-b' };

let gw: TestGateway;
let token: string;
let ca: string;
let port: number;
const logs: string[] = [];
const fleets: Fleet[] = [];

const connections = async (): Promise<CiraConnection[]> => (await (await gw.request('GET', '/api/cira/connections', { token })).json()) as CiraConnection[];
const devices = async (): Promise<Device[]> => (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];
const logged = (msg: string) => logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === msg);
const cira = (account: { username: string; password: string }, extra: Record<string, unknown> = {}) => ({ host: '127.0.0.1', port, ...account, ca, keepAliveSeconds: 1, reconnectMs: 0, ...extra });
async function fleet(base: string, seed: string, account: { username: string; password: string }, extra: Record<string, unknown> = {}): Promise<Fleet> {
  const started = await startFleet({ count: 1, base, rmcpPort: 0, seed, cira: cira(account, extra) });
  fleets.push(started);
  return started;
}
async function createAccount(body: Record<string, unknown>): Promise<{ id: string; uuids?: string[] }> {
  const res = await gw.request('POST', '/api/cira/accounts', { token, body });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as { id: string; uuids?: string[] };
}

before(async () => {
  ({ gw, token, ca, port } = await startCiraGateway(logs));
});

after(async () => {
  for (const f of fleets) await f.stop();
  await gw?.cleanup();
});

test("a device claiming, under another MPS account, the UUID of a device tunnelled under account A is refused and A's tunnel stays", async () => {
  const accountA = await createAccount(ACCOUNT_A);
  const accountB = await createAccount(ACCOUNT_B);
  const real = (await fleet('127.47.1.1', 'binding-real', ACCOUNT_A)).devices[0]!;
  await real.cira!.waitFor('connected');
  const [up] = await until('the device is up', async () => {
    const found = (await connections()).filter((c) => c.uuid === real.config.uuid);
    return found.length === 1 ? found : undefined;
  });
  assert.equal(up!.identity, 'bound', 'first known through its tunnel: bound to account A');
  assert.equal(up!.verified, true);
  const bindings = (await (await gw.request('GET', '/api/cira/bindings', { token })).json()) as Array<{ uuid: string; accountId: string; trust: string | null }>;
  assert.deepEqual(bindings.find((b) => b.uuid === real.config.uuid), { ...bindings.find((b) => b.uuid === real.config.uuid), accountId: accountA.id, trust: 'bound' });

  const impostor = (await fleet('127.47.2.1', 'binding-impostor', ACCOUNT_B, { claimUuid: real.config.uuid })).devices[0]!;
  impostor.setMisbehaviour('no-auth');
  await until('the claim is refused', async () => logged('cira tunnel refused: its MPS account may not bring this UUID').some((l) => l.uuid === real.config.uuid && l.username === ACCOUNT_B.username));
  const warning = logged('cira tunnel refused: its MPS account may not bring this UUID').find((l) => l.uuid === real.config.uuid)!;
  assert.equal(warning.level, 'warn');
  assert.match(String(warning.reason), /bound to another MPS account \('mps-site-a'\)/);
  await impostor.cira!.waitFor('disconnected');

  // The device's own tunnel was not knocked off: same connection, still up, still the one reads go through.
  const after = (await connections()).filter((c) => c.uuid === real.config.uuid);
  assert.equal(after.length, 1);
  assert.equal(after[0]!.remotePort, up!.remotePort);
  assert.equal(after[0]!.username, ACCOUNT_A.username);
  const device = (await devices()).find((d) => d.uuid === real.config.uuid)!;
  assert.deepEqual(device.connections, ['cira']);
  const read = await gw.request('GET', `/api/power/${device.id}`, { token });
  assert.equal(read.status, 200, await read.clone().text());
  assert.equal(impostor.counters().requests, 0, 'nothing reached the impostor');
  assert.equal(impostor.cira!.counters.channelsOpened, 0);

  // Rebinding needs cira:manage.
  const reader = await gw.userWith(['cira:read']);
  const refused = await gw.request('PUT', `/api/cira/bindings/${real.config.uuid}`, { token: reader, body: { accountId: accountB.id } });
  assert.equal(refused.status, 403);
  assert.equal((await connections()).find((c) => c.uuid === real.config.uuid)?.username, ACCOUNT_A.username);

  // An operator rebinds the UUID to account B: A's tunnel is dropped, B's is admitted.
  const rebound = await gw.request('PUT', `/api/cira/bindings/${real.config.uuid}`, { token, body: { accountId: accountB.id } });
  assert.equal(rebound.status, 200, await rebound.clone().text());
  assert.equal(((await rebound.json()) as { accountId: string }).accountId, accountB.id);
  await real.cira!.waitFor('disconnected');
  impostor.setMisbehaviour('none');
  impostor.cira!.start();
  const moved = await until('the tunnel of account B is up', async () => (await connections()).find((c) => c.uuid === real.config.uuid && c.username === ACCOUNT_B.username));
  assert.equal(moved.remoteAddress, impostor.address);
  const unknown = await gw.request('PUT', `/api/cira/bindings/${real.config.uuid}`, { token, body: { accountId: 'no-such-account' } });
  assert.equal(unknown.status, 404);
});

test('an MPS account limited to UUIDs refuses a device with another UUID, and admits the ones listed', async () => {
  const listedDevice = 'a1b2c3d4-0000-4000-8000-00000000000a';
  const otherDevice = 'a1b2c3d4-0000-4000-8000-00000000000b';
  const account = await createAccount({ username: 'mps-one-device', password: 'Mps-P@ssw0rd-one', uuids: [listedDevice.toUpperCase()] });
  assert.deepEqual(account.uuids, [listedDevice], 'stored in lower case');
  const listed = (await fleet('127.47.4.1', 'binding-limited-a', { username: 'mps-one-device', password: 'Mps-P@ssw0rd-one' }, { claimUuid: listedDevice })).devices[0]!;
  const other = (await fleet('127.47.5.1', 'binding-limited-b', { username: 'mps-one-device', password: 'Mps-P@ssw0rd-one' }, { claimUuid: otherDevice })).devices[0]!;
  await until('the listed UUID is up', async () => (await connections()).some((c) => c.uuid === listedDevice));
  await until('the other UUID is refused', async () => logged('cira tunnel refused: its MPS account may not bring this UUID').some((l) => l.uuid === otherDevice));
  await other.cira!.waitFor('disconnected');
  assert.equal((await connections()).some((c) => c.uuid === otherDevice), false);
  assert.equal((await devices()).some((d) => d.uuid === otherDevice), false, 'a refused tunnel never reaches the device list');
  assert.equal(listed.cira!.status, 'connected');

  // Listing it lets it in; the limit is changed with cira:manage only.
  const reader = await gw.userWith(['cira:read']);
  assert.equal((await gw.request('PATCH', `/api/cira/accounts/${account.id}`, { token: reader, body: { uuids: [listedDevice, otherDevice] } })).status, 403);
  const patched = await gw.request('PATCH', `/api/cira/accounts/${account.id}`, { token, body: { uuids: [listedDevice, otherDevice] } });
  assert.equal(patched.status, 200, await patched.clone().text());
  other.cira!.start();
  await until('the newly listed UUID is up', async () => (await connections()).some((c) => c.uuid === otherDevice));
  const bad = await gw.request('PATCH', `/api/cira/accounts/${account.id}`, { token, body: { uuids: ['not-a-uuid'] } });
  assert.equal(bad.status, 400);
  const lifted = await gw.request('PATCH', `/api/cira/accounts/${account.id}`, { token, body: { uuids: null } });
  assert.equal(((await lifted.json()) as { uuids?: string[] }).uuids, undefined);
});
