/**
 * A tunnel claiming the UUID of a device the LAN knows is not that device until it proves it: the
 * TLS certificate pinned on the LAN, presented inside a 16993 channel, or an operator's acceptance.
 * Until then no credential, Digest response or operation goes through it, and what it does never
 * counts against the device's sign-in memory. An answer that skipped authentication is an error on
 * both paths.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet, type FleetOptions, type SimDevice } from '../../sim/index.js';
import type { TestGateway } from '../../helpers/gateway-harness.js';
import { startScan, waitForScan } from '../../helpers/scan-helpers.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import type { CiraConnection } from '../../../plugins/cira/api.js';
import { startCiraGateway } from './gateway-cira-helpers.js';
import { until } from '../../helpers/poll.js';

const MPS = { username: 'mps-identity', password: 'Mps-P@ssw0rd-identity' };

let gw: TestGateway;
let token: string;
let ca: string;
let port: number;
const logs: string[] = [];
const fleets: Fleet[] = [];

const connectionOf = async (uuid: string): Promise<CiraConnection | undefined> =>
  ((await (await gw.request('GET', '/api/cira/connections', { token })).json()) as CiraConnection[]).find((c) => c.uuid === uuid);
const deviceOf = async (uuid: string): Promise<Device | undefined> => ((await (await gw.request('GET', '/api/devices', { token })).json()) as Device[]).find((d) => d.uuid === uuid);
const logged = (msg: string, uuid: string) => logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === msg && l.uuid === uuid);
const signIn = async (id: string) => (await (await gw.request('GET', `/api/devices/${id}/sign-in`, { token })).json()) as { consecutiveFailures: number; refused: unknown[] };

/** One device on the LAN (no tunnel). */
async function lanDevice(base: string, seed: string, extra: Partial<FleetOptions> = {}): Promise<SimDevice> {
  const fleet = await startFleet({ count: 1, base, rmcpPort: 0, seed, ...extra });
  fleets.push(fleet);
  return fleet.devices[0]!;
}

/**
 * One CIRA device whose tunnel is not dialed yet (the fleet's second device, the only one that dials,
 * held back), so that a test can scan it on the LAN or change it first.
 */
async function heldCiraDevice(base: string, seed: string, extra: Partial<FleetOptions> = {}, claimUuid?: string): Promise<SimDevice> {
  const fleet = await startFleet({
    count: 2,
    base,
    rmcpPort: 0,
    seed,
    ciraEvery: 2,
    ciraRampMs: 600_000,
    cira: { host: '127.0.0.1', port, ...MPS, ca, keepAliveSeconds: 1, reconnectMs: 0, ...(claimUuid ? { claimUuid } : {}) },
    ...extra,
  });
  fleets.push(fleet);
  const device = fleet.devices[1]!;
  await device.cira!.stop();
  return device;
}

async function scanned(device: SimDevice): Promise<Device> {
  const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: `${device.address}-${device.address.split('.').at(-1)}`, timeoutMs: 2000 })).id);
  assert.equal(scan.found, 1);
  const found = await deviceOf(device.config.uuid);
  assert.ok(found, 'the scan read its UUID');
  assert.equal(found.authStatus, 'ok');
  return found;
}

before(async () => {
  ({ gw, token, ca, port } = await startCiraGateway(logs));
  assert.equal((await gw.request('POST', '/api/cira/accounts', { token, body: MPS })).status, 201);
});

after(async () => {
  for (const f of fleets) await f.stop();
  await gw?.cleanup();
});

test("a tunnel claiming a LAN-scanned device's UUID gets no credential, Digest response or operation, and does not poison the device's sign-in memory", async () => {
  const real = await lanDevice('127.47.10.1', 'identity-real');
  const device = await scanned(real);
  const impostor = await heldCiraDevice('127.47.11.1', 'identity-impostor', {}, real.config.uuid);
  impostor.setMisbehaviour('refuse-all');
  impostor.cira!.start();

  const tunnel = await until('the impostor is listed, unverified', async () => connectionOf(real.config.uuid));
  assert.equal(tunnel.identity, 'unverified');
  assert.equal(tunnel.verified, false);
  assert.equal(tunnel.deviceId, device.id);
  await until('the gateway warns', async () => logged('CIRA tunnel claims the UUID of a device known from the LAN and cannot prove it; unverified until an operator accepts it', real.config.uuid).length === 1);
  assert.deepEqual((await deviceOf(real.config.uuid))?.connections, ['lan'], 'an unverified tunnel is no way to the device');

  // Reads, diagnostics and a sign-in check go to the real device on the LAN, none into the tunnel.
  real.resetCounters();
  for (let i = 0; i < 3; i++) {
    const read = await gw.request('GET', `/api/power/${device.id}`, { token });
    assert.equal(read.status, 200, await read.clone().text());
  }
  const check = await gw.request('GET', `/api/test/test-wsman/${device.id}`, { token });
  assert.equal(check.status, 200);
  assert.equal(((await check.json()) as { authenticated: boolean }).authenticated, true);
  assert.ok(real.counters().requests >= 4, 'the real device answered on the LAN');
  assert.deepEqual([impostor.counters().requests, impostor.counters().authAttempts, impostor.cira!.counters.channelsOpened], [0, 0, 0], 'no request, no Digest response, no channel reached the impostor');
  const memory = await signIn(device.id);
  assert.equal(memory.consecutiveFailures, 0);
  assert.deepEqual(memory.refused, []);
  assert.equal((await deviceOf(real.config.uuid))?.authStatus, 'ok');

  // With the real device gone from the LAN, power off goes to nobody and says so.
  await fleets.find((f) => f.devices.includes(real))!.stop();
  const off = await gw.request('POST', `/api/power/${device.id}`, { token, body: { action: 'off' } });
  assert.notEqual(off.status, 200, await off.clone().text());
  assert.equal(impostor.counters().requests, 0);
  assert.equal(impostor.state.powerState, 2, 'the impostor was not powered off either');
  assert.equal(real.state.powerState, 2, 'the real device is untouched');
});

test("an operator's accepting needs cira:manage; accepted, a tunnel that answers without challenging is an error, never a success", async () => {
  const real = await lanDevice('127.47.12.1', 'identity-real-2');
  const device = await scanned(real);
  const impostor = await heldCiraDevice('127.47.13.1', 'identity-impostor-2', {}, real.config.uuid);
  impostor.setMisbehaviour('no-auth');
  impostor.cira!.start();
  await until('the impostor is listed, unverified', async () => (await connectionOf(real.config.uuid))?.identity === 'unverified');

  const reader = await gw.userWith(['cira:read']);
  assert.equal((await gw.request('POST', `/api/cira/connections/${device.id}/accept`, { token: reader })).status, 403);
  assert.equal((await connectionOf(real.config.uuid))?.verified, false);
  assert.equal((await gw.request('POST', '/api/cira/connections/no-such-device/accept', { token })).status, 404);

  // A careless operator accepts it: operations now go through the tunnel, and its plain 200s are refused.
  const accepted = await gw.request('POST', `/api/cira/connections/${device.id}/accept`, { token });
  assert.equal(accepted.status, 200, await accepted.clone().text());
  assert.deepEqual(((await accepted.json()) as CiraConnection).identity, 'accepted');
  await until('the tunnel is a way to the device', async () => (await deviceOf(real.config.uuid))?.connections?.includes('cira'));
  const off = await gw.request('POST', `/api/power/${device.id}`, { token, body: { action: 'off' } });
  assert.equal(off.status, 502, await off.clone().text());
  const problem = (await off.json()) as { type: string; detail: string };
  assert.match(problem.type, /GW_ERR_DEVICE_NOT_AUTHENTICATED$/);
  assert.match(problem.detail, /without asking for authentication/);
  assert.ok(impostor.cira!.counters.channelsOpened > 0, 'the operation went through the tunnel');
  assert.equal(impostor.counters().authAttempts, 0, 'no Digest response was sent to a peer that never challenged');
  assert.equal((await signIn(device.id)).consecutiveFailures, 0);
});

test('on the LAN, a device that answers a request the gateway meant to sign without challenging is an error, not a success', async () => {
  const sim = await lanDevice('127.47.14.1', 'identity-lan-no-auth');
  sim.setMisbehaviour('no-auth');
  // A scan does not take its answers as a sign-in.
  const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: `${sim.address}-1`, timeoutMs: 2000 })).id);
  assert.equal(scan.found, 1);
  const device = ((await (await gw.request('GET', '/api/devices', { token })).json()) as Device[]).find((d) => d.ipAddress === sim.address)!;
  assert.equal(device.authStatus, 'error');
  assert.equal(device.hostname, null, 'nothing it said was taken as the device speaking');
  const off = await gw.request('POST', `/api/power/${device.id}`, { token, body: { action: 'off' } });
  assert.equal(off.status, 502, await off.clone().text());
  assert.match(((await off.json()) as { type: string }).type, /GW_ERR_DEVICE_NOT_AUTHENTICATED$/);
  assert.equal(sim.counters().authAttempts, 0, 'no Digest response was sent');
  const check = (await (await gw.request('GET', `/api/test/test-wsman/${device.id}`, { token })).json()) as { authenticated: boolean; error?: string };
  assert.equal(check.authenticated, false);
  assert.match(check.error ?? '', /without asking for authentication/);
  sim.setMisbehaviour('none');
});

test("a non-TLS device known from the LAN: its own tunnel stays unverified until an operator accepts it, then it is used, also after a reconnect", async () => {
  const sim = await heldCiraDevice('127.47.15.1', 'identity-plain', { ciraLan: true });
  const device = await scanned(sim);
  sim.cira!.start();
  await until('the tunnel is listed, unverified', async () => (await connectionOf(sim.config.uuid))?.identity === 'unverified');
  const read = await gw.request('GET', `/api/power/${device.id}`, { token });
  assert.equal(read.status, 200);
  assert.equal(sim.cira!.counters.channelsOpened, 0, 'unverified: the read went over the LAN');

  assert.equal((await gw.request('POST', `/api/cira/connections/${device.id}/accept`, { token })).status, 200);
  await until('the tunnel is a way to the device', async () => (await deviceOf(sim.config.uuid))?.connections?.includes('cira'));
  assert.equal((await gw.request('GET', `/api/power/${device.id}`, { token })).status, 200);
  assert.ok(sim.cira!.counters.channelsOpened > 0, 'accepted: the read went through the tunnel');

  // A reconnect under the same account is the same device.
  await sim.cira!.stop();
  sim.cira!.start();
  await until('the tunnel is back, accepted', async () => {
    const connection = await connectionOf(sim.config.uuid);
    return connection?.identity === 'accepted' && connection.verified;
  });
});

test('a TLS device known from the LAN: a tunnel presenting another certificate stays unverified, its own tunnel proves itself with the pinned certificate and is used', async () => {
  const sim = await heldCiraDevice('127.47.16.1', 'identity-tls', { ciraLan: true, tlsEvery: 1 });
  const device = await scanned(sim);
  assert.equal(device.tlsFingerprint, sim.certificateFingerprint, 'pinned on the LAN');

  const impostor = await heldCiraDevice('127.47.17.1', 'identity-tls-impostor', { tlsEvery: 1 }, sim.config.uuid);
  impostor.setCertificate('b');
  impostor.cira!.start();
  await until('the certificate check fails', async () => logged('CIRA tunnel presented another TLS certificate than the one pinned for the device on the LAN; it stays unverified', sim.config.uuid).length === 1);
  assert.equal((await connectionOf(sim.config.uuid))?.verified, false);
  assert.equal(impostor.counters().authAttempts, 0, 'the check sent no credential');
  await impostor.cira!.stop();

  sim.cira!.start();
  const proven = await until('the device proves itself', async () => {
    const connection = await connectionOf(sim.config.uuid);
    return connection?.identity === 'proven' ? connection : undefined;
  });
  assert.equal(proven.verified, true);
  assert.equal(proven.remoteAddress, sim.address);
  await until('the tunnel is a way to the device', async () => (await deviceOf(sim.config.uuid))?.connections?.includes('cira'));
  const opened = sim.cira!.counters.channelsOpened;
  const read = await gw.request('GET', `/api/power/${device.id}`, { token });
  assert.equal(read.status, 200, await read.clone().text());
  assert.ok(sim.cira!.counters.channelsOpened > opened, 'the read went through the proven tunnel');
});

test("a new tunnel for a UUID is challenged afresh: a Digest nonce the previous tunnel's peer issued is never signed for the next one", async () => {
  const first = await heldCiraDevice('127.47.18.1', 'identity-nonce-first');
  first.cira!.start();
  await until('the device is read through its tunnel', async () => (await deviceOf(first.config.uuid))?.authStatus === 'ok');
  const device = (await deviceOf(first.config.uuid))!;
  assert.equal((await gw.request('GET', `/api/power/${device.id}`, { token })).status, 200);
  await first.cira!.stop();

  // Another peer brings the same UUID under the same account (the account's tunnels are trusted to be the
  // device: one MPS account per device, or its UUID list, is what keeps devices of one account apart).
  const next = await heldCiraDevice('127.47.19.1', 'identity-nonce-next', {}, first.config.uuid);
  next.setMisbehaviour('no-auth');
  next.cira!.start();
  await until('the next tunnel is up', async () => (await connectionOf(first.config.uuid))?.remoteAddress === next.address);
  await until('it is a way to the device', async () => (await deviceOf(first.config.uuid))?.connections?.includes('cira'));
  const read = await gw.request('GET', `/api/power/${device.id}`, { token });
  assert.equal(read.status, 502, await read.clone().text());
  assert.equal(next.counters().authAttempts, 0, 'no Digest response on the earlier peer\'s nonce');
});
