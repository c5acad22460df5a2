/**
 * Power management against the simulator: reading the state, on/off/reset/cycle changing the
 * simulated device and confirmed by a re-read, unsupported actions refused without touching the
 * device, offline, stalled and refusing devices answered with a problem in bounded time, and a bulk
 * change over 100 devices.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { SimDevice } from '../../sim/sim-device.js';
import { startFleetGateway, type FleetGateway } from '../remote-monitor/fixtures/fleet-gateway.js';
import { responseContract } from '../../helpers/response-contract.js';

const ATTEMPTS = 2;
let kit: FleetGateway;

before(async () => {
  kit = await startFleetGateway({
    fleet: { count: 104, base: '127.60.0.1', tlsEvery: 5, altPasswordEvery: 52, seed: 'power-test' },
    range: '127.60.0.1-104',
    plugins: ['rest-api', 'power-mgmt'],
    pluginConfig: { 'power-mgmt': { options: { device: { requestTimeoutMs: 2000, credentialAttempts: ATTEMPTS }, confirm: { intervalMs: 200 } } } },
  });
});

after(async () => {
  await kit?.cleanup();
});

interface Problem {
  type: string;
  status: number;
  detail: string;
}

const idOf = (sim: SimDevice) => kit.devices.get(sim.address)!.id;
const readable = () => kit.fleet.devices.filter((d) => d.config.passwordId === 'default');
const getPower = (sim: SimDevice) => kit.gw.request('GET', `/api/power/${idOf(sim)}`, { token: kit.token });
const postPower = (sim: SimDevice, action: string) => kit.gw.request('POST', `/api/power/${idOf(sim)}`, { token: kit.token, body: { action } });
const powerEvents = (deviceId: string) => kit.events().filter((e) => e.event === 'PowerStateChanged' && e.deviceId === deviceId);
const problemType = async (res: Response) => ((await res.json()) as Problem).type.replace(/^.*:/, '');

test('reading the power state gives the DMTF value, its name and the actions the device offers', async () => {
  for (const sim of readable().slice(0, 5)) {
    const res = await getPower(sim);
    assert.equal(res.status, 200, `${sim.address} tls ${sim.config.tls}`);
    assert.deepEqual(await res.json(), {
      deviceId: idOf(sim),
      powerState: 2,
      state: 'on',
      availableActions: ['cycle', 'off', 'reset', 'sleep', 'hibernate', 'soft-off', 'soft-reset'],
    });
  }
});

test('off, on, reset and cycle change the simulated device, are confirmed by a re-read and published once each', async () => {
  const sim = readable()[2]!;
  const id = idOf(sim);
  const steps: Array<[string, number, string]> = [
    ['off', 8, 'off'],
    ['on', 2, 'on'],
    ['reset', 2, 'on'],
    ['cycle', 2, 'on'],
  ];
  for (const [action, powerState, state] of steps) {
    const changesBefore = sim.counters().powerChanges;
    const eventsBefore = powerEvents(id).length;
    const res = await postPower(sim, action);
    assert.equal(res.status, 200, action);
    assert.deepEqual(await res.json(), { deviceId: id, action, returnValue: 0, ok: true, powerState, state, confirmed: true });
    assert.equal(sim.counters().powerChanges, changesBefore + 1, `${action} reached the device`);
    assert.equal(sim.state.powerState, powerState);
    const after = (await (await getPower(sim)).json()) as { powerState: number; state: string; availableActions: string[] };
    assert.equal(after.powerState, powerState);
    assert.equal(after.state, state);
    assert.deepEqual(powerEvents(id).slice(eventsBefore).map((e) => e.event === 'PowerStateChanged' && e.powerState), [powerState], `one event for ${action}`);
  }
  sim.setPowerState(8);
  assert.deepEqual(((await (await getPower(sim)).json()) as { availableActions: string[] }).availableActions, ['on']);
  sim.setPowerState(2);
});

test('an action the device does not offer is 422 and the device is not asked to change', async () => {
  const sim = readable()[3]!;
  sim.setPowerState(8);
  try {
    const before = sim.counters().powerChanges;
    for (const action of ['reset', 'off', 'cycle', 'sleep']) {
      const res = await postPower(sim, action);
      assert.equal(res.status, 422, action);
      assert.equal(await problemType(res), 'GW_ERR_POWER_ACTION_UNSUPPORTED');
    }
    assert.equal(sim.counters().powerChanges, before, 'no RequestPowerStateChange reached the device');
    assert.equal(sim.state.powerState, 8);
    sim.setPowerState(2);
    const on = await postPower(sim, 'on');
    assert.equal(on.status, 422, 'on is not offered while on');
    assert.match(((await on.json()) as Problem).detail, /offers: cycle, off, reset/);
  } finally {
    sim.setPowerState(2);
  }
  const unknownAction = await postPower(sim, 'explode');
  assert.equal(unknownAction.status, 400);
  const extra = await kit.gw.request('POST', `/api/power/${idOf(sim)}`, { token: kit.token, body: { action: 'off', force: true } });
  assert.equal(extra.status, 400);
  const unknownDevice = await kit.gw.request('GET', '/api/power/no-such-device', { token: kit.token });
  assert.equal(unknownDevice.status, 404);
});

test('an offline device is 409, a stalled one 504 and one refusing the credentials 502, each in bounded time', async () => {
  const [offline, stalled] = [readable()[4]!, readable()[5]!];
  await offline.stop();
  stalled.setMisbehaviour('stall');
  try {
    for (const res of [await getPower(offline), await postPower(offline, 'off')]) {
      assert.equal(res.status, 409);
      const problem = (await res.json()) as Problem;
      assert.match(problem.type, /GW_ERR_DEVICE_OFFLINE$/);
      assert.match(problem.detail, /offline/);
    }
    const started = Date.now();
    const res = await postPower(stalled, 'off');
    assert.equal(res.status, 504);
    assert.equal(await problemType(res), 'GW_ERR_DEVICE_TIMEOUT');
    assert.ok(Date.now() - started < 30_000, 'bounded by the request timeout, not a hang');
    assert.equal(stalled.state.powerState, 2);
  } finally {
    await offline.start();
    stalled.setMisbehaviour('none');
  }
  const alt = kit.fleet.devices.find((d) => d.config.passwordId === 'alt')!;
  alt.resetCounters();
  const refused = await postPower(alt, 'off');
  assert.equal(refused.status, 502);
  assert.equal(await problemType(refused), 'GW_ERR_DEVICE_UNAUTHORIZED');
  assert.ok(alt.counters().authFailures <= ATTEMPTS);
  assert.equal(alt.counters().powerChanges, 0);
});

test('a bulk change over 100 devices changes every one and reports one result per device', async () => {
  const sims = readable().slice(0, 100);
  assert.equal(sims.length, 100);
  const ids = sims.map(idOf);
  const eventsBefore = kit.events().length;
  const res = await kit.gw.request('POST', '/api/power/bulk', { token: kit.token, body: { deviceIds: [...ids, 'no-such-device'], action: 'off' } });
  assert.equal(res.status, 200);
  const body = (await res.json()) as { action: string; total: number; succeeded: number; failed: number; results: Array<{ deviceId: string; ok: boolean; powerState: number | null; error?: { status: number; code: string } }> };
  assert.deepEqual([body.action, body.total, body.succeeded, body.failed], ['off', 101, 100, 1]);
  assert.deepEqual(body.results.map((r) => r.deviceId), [...ids, 'no-such-device'], 'in request order');
  for (const r of body.results.slice(0, 100)) assert.deepEqual([r.ok, r.powerState], [true, 8]);
  assert.deepEqual(body.results[100], { deviceId: 'no-such-device', returnValue: null, ok: false, powerState: null, state: 'unknown', confirmed: false, error: { status: 404, code: 'GW_ERR_DEVICE_NOT_FOUND', detail: "no device 'no-such-device'" } });
  for (const sim of sims) assert.equal(sim.state.powerState, 8, `${sim.address} is off`);
  const published = kit.events().slice(eventsBefore).filter((e) => e.event === 'PowerStateChanged');
  assert.equal(published.length, 100);
  assert.equal(new Set(published.map((e) => e.deviceId)).size, 100);

  const again = await kit.gw.request('POST', '/api/power/bulk', { token: kit.token, body: { deviceIds: ids.slice(0, 10), action: 'off' } });
  const repeated = (await again.json()) as { failed: number; results: Array<{ error?: { code: string } }> };
  assert.equal(repeated.failed, 10, 'already off: off is not offered');
  assert.ok(repeated.results.every((r) => r.error?.code === 'GW_ERR_POWER_ACTION_UNSUPPORTED'));

  for (const sim of sims) sim.setPowerState(2);
});

test('a bulk request is validated: no duplicates, no unknown fields, at most the configured number of devices', async () => {
  const post = (body: unknown) => kit.gw.request('POST', '/api/power/bulk', { token: kit.token, body });
  assert.equal((await post({ deviceIds: ['a', 'a'], action: 'on' })).status, 400);
  assert.equal((await post({ deviceIds: [], action: 'on' })).status, 400);
  assert.equal((await post({ deviceIds: ['a'], action: 'on', extra: 1 })).status, 400);
  assert.equal((await post({ deviceIds: Array.from({ length: 1001 }, (_, i) => `d${i}`), action: 'on' })).status, 400);
});

test('every PowerStateChanged published (what /scanHub sends) holds its documented shape', async () => {
  const published = kit.events().filter((e) => e.event === 'PowerStateChanged');
  assert.ok(published.length > 0, 'the tests above changed power states');
  const contract = responseContract(kit.gw.url);
  for (const { event, at, ...payload } of published) await contract.checkComponent('PowerStateChangedEvent', payload, `${event} at ${at}`);
});
