/**
 * The per-device sign-in memory against a simulated fleet with AMT's lockout on (10 failed logins in
 * a row): four wrong credentials stored before the two right ones, repeated scans with diagnostics,
 * power and monitor reads alongside never lock a device out, and every device ends signed in with
 * its own credential.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import type { SimDevice } from '../../sim/sim-device.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import type { Device } from '../../../plugins/devices/api.js';

const RANGE = '127.0.13.1-20';
const THRESHOLD = 10;
let fleet: Fleet;
let gw: TestGateway;
let token: string;
const ids: Record<string, string> = {};

interface SignInView {
  consecutiveFailures: number;
  budget: number;
  refused: Array<{ credentialId: string }>;
  untried: string[];
  workingCredentialId: string | null;
  paused: { reason: string; detail: string } | null;
}

before(async () => {
  // A long lockout, so that any lockout the gateway caused is still visible when asserted.
  fleet = await startFleet({ count: 20, base: '127.0.13.1', rmcpPort: SIM_RMCP_PORT, altPasswordEvery: 2, lockoutThreshold: THRESHOLD, lockoutMs: 120_000, seed: 'sign-in' });
  gw = await startTestGateway({ plugins: ['rest-api', 'power-mgmt', 'remote-monitor'], overrides: SIM_AMT_SETTINGS });
  token = await gw.login();
  for (let i = 1; i <= 4; i++) ids[`wrong${i}`] = await createCredential(gw, token, { name: `wrong${i}`, username: 'admin', password: `Wrong-P@ss${i}` });
  ids['right'] = await createCredential(gw, token, { name: 'right', username: 'admin', password: 'P@ssw0rd1' });
  ids['alt'] = await createCredential(gw, token, { name: 'alt', username: 'admin', password: 'Other-P@ss2' });
});

after(async () => {
  await gw?.cleanup();
  await fleet?.stop();
});

const devices = async (): Promise<Device[]> => (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];
const byAddress = async () => new Map((await devices()).map((d) => [d.ipAddress, d]));
const signIn = async (deviceId: string): Promise<SignInView> => (await (await gw.request('GET', `/api/devices/${deviceId}/sign-in`, { token })).json()) as SignInView;

function assertNoLockout(when: string): void {
  for (const sim of fleet.devices) {
    const counters = sim.counters();
    assert.equal(sim.lockedOut, false, `${sim.address} locked out ${when}`);
    assert.equal(counters.lockedRefusals, 0, `${sim.address} refused logins as locked ${when}`);
    assert.ok(counters.authFailures <= THRESHOLD - 2, `${sim.address}: ${counters.authFailures} failed logins ${when}`);
  }
}

async function scan(): Promise<void> {
  const done = await waitForScan(gw, token, (await startScan(gw, token, { range: RANGE, timeoutMs: 2000 })).id, 120_000);
  assert.equal(done.status, 'completed');
}

test('repeated scans, diagnostics, power and monitor reads with four wrong credentials first lock no device out, and every device ends ok', async () => {
  // Eleven diagnostics with the (wrong) default credential lock a device out without the memory.
  const first = fleet.devices[0]!;
  for (let i = 0; i < 11; i++) {
    const res = await gw.request('GET', `/api/test/test-wsman/${first.address}`, { token });
    assert.equal(res.status, 200);
    const body = (await res.json()) as { authenticated: boolean; error?: string };
    assert.equal(body.authenticated, false);
  }
  assertNoLockout('after eleven test-wsman calls with a wrong credential');
  assert.ok(first.counters().authFailures <= 2, `test-wsman repeated a refused credential: ${first.counters().authFailures} failures`);

  for (let round = 1; round <= 6; round++) {
    // Other paths sign in while the scan runs: power reads, monitor reads and credential checks share each device's one budget.
    const known = await devices();
    const others = Promise.all(
      known.slice(0, 6).map(async (device) => {
        await Promise.all([gw.request('GET', `/api/power/${device.id}`, { token }), gw.request('GET', `/api/monitor/${device.id}/hardware`, { token })]);
        await gw.request('GET', `/api/test/test-credential?ip=${device.ipAddress}&id=${ids['wrong2']}`, { token });
      }),
    );
    await Promise.all([scan(), others]);
    assertNoLockout(`after scan ${round} with power, monitor reads and test-credential calls alongside`);
  }

  const final = await byAddress();
  assert.equal(final.size, 20);
  for (const sim of fleet.devices) {
    const device = final.get(sim.address)!;
    assert.equal(device.authStatus, 'ok', `${sim.address}: ${device.authStatus}`);
    assert.equal(device.credentialId, sim.config.passwordId === 'alt' ? ids['alt'] : ids['right'], sim.address);
  }
  // The memory says which credentials each device refused, and none of them is tried again.
  const view = await signIn(final.get(fleet.devices[1]!.address)!.id);
  assert.equal(view.workingCredentialId, ids['alt']);
  assert.deepEqual(new Set(view.refused.map((r) => r.credentialId)), new Set([ids['wrong1'], ids['wrong2'], ids['wrong3'], ids['wrong4'], ids['right']]));
  assert.equal(view.consecutiveFailures, 0);
  assert.equal(view.budget, THRESHOLD - 2);

  const before = fleet.devices.map((d) => d.counters().authFailures);
  await scan();
  const after = fleet.devices.map((d) => d.counters().authFailures);
  assert.deepEqual(after, before, 'a rescan of devices with a known working credential causes no failed login');
});

test('a device no stored credential opens is paused below its lockout, and an operator sees why and resets it', async () => {
  const sim: SimDevice = fleet.devices[4]!;
  sim.setPassword('Changed-P@ss9');
  const device = (await byAddress()).get(sim.address)!;
  const failuresBefore = sim.counters().authFailures;
  // Power reads, scans and checks until the memory pauses the device; never more than the budget.
  for (let i = 0; i < 6; i++) {
    await gw.request('GET', `/api/power/${device.id}`, { token });
    await gw.request('GET', `/api/test/test-wsman/${sim.address}?credentialId=${ids['right']}`, { token });
  }
  await scan();
  assert.equal(sim.lockedOut, false);
  assert.ok(sim.counters().authFailures - failuresBefore <= THRESHOLD - 2, `${sim.counters().authFailures - failuresBefore} failed logins`);
  const view = await signIn(device.id);
  assert.equal(view.untried.length, 0);
  const stored = (await byAddress()).get(sim.address)!;
  assert.ok(['unauthorized', 'locked-out-risk'].includes(stored.authStatus), stored.authStatus);
  const power = await gw.request('GET', `/api/power/${device.id}`, { token });
  assert.ok([409, 502].includes(power.status), String(power.status));
  assert.match(((await power.json()) as { detail: string }).detail, /refused every stored credential|paused/);

  // A credential whose password changes is tried again on the device that refused it.
  const fixed = await gw.request('PUT', `/api/credentials/${ids['wrong4']}`, { token, body: { password: 'Changed-P@ss9' } });
  assert.equal(fixed.status, 200);
  const read = await gw.request('GET', `/api/power/${device.id}`, { token });
  assert.equal(read.status, 200, await read.clone().text());
  assert.equal((await signIn(device.id)).workingCredentialId, ids['wrong4']);
  assert.equal(sim.lockedOut, false);

  // Operators reset the memory with their own permission.
  const reader = await gw.userWith(['devices:read']);
  assert.equal((await gw.request('DELETE', `/api/devices/${device.id}/sign-in`, { token: reader })).status, 403);
  const reset = await gw.request('DELETE', `/api/devices/${device.id}/sign-in`, { token });
  assert.equal(reset.status, 200);
  const cleared = (await reset.json()) as SignInView;
  assert.deepEqual([cleared.consecutiveFailures, cleared.refused.length, cleared.workingCredentialId], [0, 0, null]);
});

test("a device that answers with its lockout page is left alone and marked, without blaming the credential", async () => {
  const sim = fleet.devices[6]!;
  const device = (await byAddress()).get(sim.address)!;
  // Another client locks the device out.
  for (let i = 0; i < THRESHOLD; i++) {
    await fetch(`http://${sim.address}:16992/wsman`, {
      method: 'POST',
      headers: { authorization: `Digest username="admin", realm="${sim.config.realm}", nonce="x", uri="/wsman", response="${'0'.repeat(32)}", qop=auth, nc=00000001, cnonce="c"` },
      body: '<x/>',
    });
  }
  assert.equal(sim.lockedOut, true);
  const res = await gw.request('GET', `/api/power/${device.id}`, { token });
  assert.equal(res.status, 409);
  assert.equal(((await res.json()) as { type: string }).type.replace(/^.*:/, ''), 'GW_ERR_SIGN_IN_PAUSED');
  const view = await signIn(device.id);
  assert.equal(view.paused?.reason, 'locked-out');
  assert.ok(!view.refused.some((r) => r.credentialId === ids['right']), 'the working credential is not blamed for the lockout');
  const refusalsBefore = sim.counters().lockedRefusals;
  await gw.request('GET', `/api/power/${device.id}`, { token });
  await scan();
  assert.equal(sim.counters().lockedRefusals, refusalsBefore, 'a paused device gets no sign-in');
  assert.equal((await byAddress()).get(sim.address)!.authStatus, 'locked-out-risk');
});
