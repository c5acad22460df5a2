/**
 * Field fault: power state, hardware inventory and event log of ONE device read at the same time
 * made the gateway answer GW_ERR_DEVICE_UNAUTHORIZED with the right stored credential. Concurrent
 * requests share the device's Digest nonce, reach it with `nc` out of order and get a stale 401: that
 * is a request to sign again on a fresh nonce, never a refusal of the credential.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFleetGateway, type FleetGateway } from './fixtures/fleet-gateway.js';

const THRESHOLD = 10;
let kit: FleetGateway;

before(async () => {
  kit = await startFleetGateway({
    // 127.115.0.2 speaks HTTP, 127.115.0.3 TLS; a long lockout keeps any lockout visible.
    fleet: { count: 2, base: '127.115.0.2', tlsEvery: 2, eventLogRecords: 40, lockoutThreshold: THRESHOLD, lockoutMs: 120_000, seed: 'concurrent-reads' },
    range: '127.115.0.2-3',
    plugins: ['rest-api', 'power-mgmt', 'remote-monitor'],
    pluginConfig: { 'remote-monitor': { options: { intervalSeconds: 3600 } } },
  });
});

after(async () => {
  await kit?.cleanup();
});

interface SignInView {
  consecutiveFailures: number;
  refused: Array<{ credentialId: string }>;
  workingCredentialId: string | null;
  paused: unknown;
}

const get = (path: string) => kit.gw.request('GET', path, { token: kit.token });

test('many concurrent reads of one device all succeed, cause no failed login and no refusal in the sign-in memory', async () => {
  assert.equal(kit.devices.size, 2);
  for (const sim of kit.fleet.devices) {
    const id = kit.devices.get(sim.address)!.id;
    const before = sim.counters();
    const paths = [`/api/power/${id}`, `/api/monitor/${id}/hardware`, `/api/monitor/${id}/events?limit=5`];
    for (const width of [3, 6, 10, 10, 3, 10]) {
      const calls = Array.from({ length: width }, (_, i) => paths[i % paths.length]!);
      const answers = await Promise.all(calls.map(async (path) => ({ path, res: await get(path) })));
      for (const { path, res } of answers) {
        assert.equal(res.status, 200, `${sim.address} ${path} (${width} at once): ${res.status} ${res.status === 200 ? '' : await res.text()}`);
        await res.arrayBuffer().catch(() => undefined);
      }
    }
    const after = sim.counters();
    assert.equal(after.authFailures, before.authFailures, `${sim.address}: the device counted failed logins`);
    assert.equal(sim.lockedOut, false);
    const view = (await (await get(`/api/devices/${id}/sign-in`)).json()) as SignInView;
    assert.deepEqual(view.refused, [], `${sim.address}: the sign-in memory recorded a refusal`);
    assert.equal(view.consecutiveFailures, 0);
    assert.equal(view.paused, null);
    assert.ok(view.workingCredentialId);
  }
});
