/**
 * The gate's one call, `deviceGate.run(device, task, input)`: one turn of the device, one connection,
 * the Digest session the device's last operation left. Counted by the simulated device: a power read
 * is one request once the session is warm, a reset three (read, change, confirming read), a refused
 * action one; a plugin's own device task runs by name on a signed-in session and sees no credential;
 * a turn provider beyond this gateway is taken and given around every operation, and around a scan's
 * probe of a device the registry knows (never for an address no device is known at).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startFleet, type Fleet } from '../../sim/index.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import type { Device } from '../../../plugins/devices/api.js';

const EXTENDER = fileURLToPath(new URL('../../fixtures/plugins/gate-users/gate-extender.ts', import.meta.url));
const BASE = '127.64.1.1';

let gw: TestGateway;
let token: string;
let fleet: Fleet;
let devices: Device[];

before(async () => {
  fleet = await startFleet({ count: 3, base: BASE, rmcpPort: 0, seed: 'gate-run', tlsEvery: 3, powerAssociationGet: true });
  gw = await startTestGateway({
    plugins: ['rest-api', 'power-mgmt', 'devices'],
    overrides: mergeConfig(SIM_AMT_SETTINGS, {
      plugins: { 'power-mgmt': { options: { confirm: { attempts: 3, intervalMs: 0 } } }, 'gate-extender': { enable: true, path: EXTENDER } },
    }),
  });
  token = await gw.login();
  await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: `${BASE}-3`, timeoutMs: 2000 })).id);
  assert.equal(scan.found, 3);
  devices = (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];
});

after(async () => {
  await gw?.cleanup();
  await fleet?.stop();
});

const idOf = (address: string) => devices.find((d) => d.ipAddress === address)!.id;

for (const index of [0, 2]) {
  test(`a power read is one device request once the Digest session is warm, a reset three (${index === 2 ? 'TLS' : 'HTTP'})`, async () => {
    const sim = fleet.devices[index]!;
    const id = idOf(sim.address);
    assert.equal((await gw.request('GET', `/api/power/${id}`, { token })).status, 200, 'warms the session');
    sim.resetCounters();
    const read = await gw.request('GET', `/api/power/${id}`, { token });
    assert.equal(read.status, 200);
    assert.deepEqual([sim.counters().requests, sim.counters().unauthorized, sim.counters().connections], [1, 0, 1], 'one request, signed on the kept nonce, on one connection');
    sim.resetCounters();
    const reset = await gw.request('POST', `/api/power/${id}`, { token, body: { action: 'reset' } });
    assert.equal(reset.status, 200);
    assert.equal(((await reset.json()) as { confirmed: boolean }).confirmed, true);
    assert.deepEqual([sim.counters().requests, sim.counters().unauthorized, sim.counters().connections, sim.counters().powerChanges], [3, 0, 1, 1], 'read, change, confirming read: three requests on one connection');
  });
}

test('an action the device does not offer is refused after its one read, nothing written', async () => {
  const sim = fleet.devices[1]!;
  const id = idOf(sim.address);
  assert.equal((await gw.request('GET', `/api/power/${id}`, { token })).status, 200);
  sim.resetCounters();
  const on = await gw.request('POST', `/api/power/${id}`, { token, body: { action: 'on' } });
  assert.equal(on.status, 422);
  assert.match(((await on.json()) as { type: string }).type, /GW_ERR_POWER_ACTION_UNSUPPORTED$/);
  assert.deepEqual([sim.counters().requests, sim.counters().powerChanges], [1, 0]);
});

test('firmware that faults on the Get of the power association is read through its enumeration', async () => {
  const old = await startFleet({ count: 1, base: '127.64.12.1', rmcpPort: 0, seed: 'gate-run-old', powerAssociationGet: false });
  try {
    const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: '127.64.12.1', timeoutMs: 2000 })).id);
    assert.equal(scan.found, 1);
    const id = ((await (await gw.request('GET', '/api/devices', { token })).json()) as Device[]).find((d) => d.ipAddress === '127.64.12.1')!.id;
    const read = await gw.request('GET', `/api/power/${id}`, { token });
    assert.equal(read.status, 200);
    assert.deepEqual(((await read.json()) as { state: string; availableActions: string[] }).state, 'on');
  } finally {
    await old.stop();
  }
});

test("a plugin's own device task runs by name on a signed-in session: no credential in its input or its session", async () => {
  const sim = fleet.devices[0]!;
  const res = await gw.request('POST', `/api/gate-extender/${idOf(sim.address)}/task`, { token });
  assert.equal(res.status, 200, await res.clone().text());
  const seen = (await res.json()) as { hostName: string; inputKeys: string[]; sessionMembers: string[] };
  assert.equal(seen.hostName, sim.config.hostname);
  assert.deepEqual(seen.inputKeys, ['note']);
  for (const member of seen.sessionMembers) assert.doesNotMatch(member, /password|credential|username/i, `the session has no ${member}`);
});

test('the gate takes a registered turn provider around every operation, refuses a task name taken, and the credentials service cannot unseal', async () => {
  const sim = fleet.devices[1]!;
  assert.equal((await gw.request('GET', `/api/power/${idOf(sim.address)}`, { token })).status, 200);
  const seen = (await (await gw.request('GET', '/api/gate-extender/seen', { token })).json()) as { turns: string[]; clashes: Record<string, string | null>; credentials: string[]; apiVersion: string };
  const mine = seen.turns.filter((t) => t.endsWith(` ${sim.address}`));
  assert.ok(mine.length >= 2 && mine.length % 2 === 0, `taken and given in pairs: ${mine.join(', ')}`);
  for (let i = 0; i < mine.length; i += 2) assert.deepEqual([mine[i], mine[i + 1]], [`take ${sim.address}`, `give ${sim.address}`]);
  assert.deepEqual(seen.clashes, { builtIn: 'GW_ERR_DEVICE_TASK_CLASH', again: 'GW_ERR_DEVICE_TASK_CLASH' });
  assert.deepEqual(seen.credentials, ['bind', 'boundTo', 'checkSealed', 'list', 'passwordMatches', 'rebind', 'unbind']);
  assert.equal(seen.apiVersion, '2.0.0');
});

test("with a turn provider, a scan's probe of a known device takes the provider's turn; an address no device is known at takes none", async () => {
  const seenTurns = async () => ((await (await gw.request('GET', '/api/gate-extender/seen', { token })).json()) as { turns: string[] }).turns;
  const before = (await seenTurns()).length;
  // 127.64.1.0-7: the three known devices among five addresses where nothing is known.
  const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: '127.64.1.0/29', timeoutMs: 2000 })).id);
  assert.equal(scan.found, 3);
  const taken = (await seenTurns()).slice(before).filter((t) => t.startsWith('take '));
  const known = new Set(fleet.devices.map((d) => d.address));
  const byAddress = (address: string) => taken.filter((t) => t === `take ${address}`).length;
  // The probe's turn, then the read's.
  for (const address of known) assert.equal(byAddress(address), 2, `${address}: ${taken.join(', ')}`);
  assert.deepEqual(taken.filter((t) => !known.has(t.slice('take '.length))), [], 'no turn beyond the gateway for an unknown address');
});
