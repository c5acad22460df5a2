/**
 * Hub connections follow the revocation of their sign-in at once, not at the next periodic token
 * check: signing out, a password change or the user's deletion close the connection, and a
 * permission taken away stops the events it guarded.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HubConnectionState } from '@microsoft/signalr';
import type { TestGateway } from '../../helpers/gateway-harness.js';
import { connectSignalR, publish, settle, startHubGateway, upgradeStatus } from './hub-test-kit.js';

describe('hub connections end with their sign-in', () => {
  let gw: TestGateway;
  let admin: string;

  before(async () => {
    // The periodic token check is a minute away: only the revocation can end a connection in time.
    gw = await startHubGateway({ plugins: ['power-mgmt', 'remote-monitor'], hub: { authRecheckIntervalMs: 60_000 } });
    admin = await gw.login();
  });
  after(() => gw.cleanup());

  const revocations = {
    logout: (_name: string, token: string) => gw.request('POST', '/api/auth/logout', { token }),
    'password change': (name: string) => gw.request('PUT', `/api/users/${name}`, { token: admin, body: { password: 'changed-password-2' } }),
    deletion: (name: string) => gw.request('DELETE', `/api/users/${name}`, { token: admin }),
  };
  for (const [what, revoke] of Object.entries(revocations)) {
    test(`${what} closes the user's hub connection within a second`, async () => {
      const name = `hub-${what.replace(' ', '-')}`;
      const token = await gw.userWith(['devices:read'], name);
      const { connection } = await connectSignalR(gw.url, token);
      const closed = new Promise<number>((resolve) => connection.onclose(() => resolve(performance.now())));
      const started = performance.now();
      const res = await revoke(name, token);
      assert.ok(res.status < 300, `${what}: ${res.status}`);
      const at = await Promise.race([closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000))]);
      assert.ok(at !== null && at - started < 1_000, `still connected ${at === null ? 'after 5 s' : Math.round(at - started) + ' ms later'}`);
      assert.equal(connection.state, HubConnectionState.Disconnected);
    });
  }

  test("a permission taken away stops its events at once, and the connection stays", async () => {
    const name = 'hub-narrowed';
    const token = await gw.userWith(['devices:read', 'power:read'], name);
    const { connection, received } = await connectSignalR(gw.url, token);
    try {
      assert.equal((await gw.request('PUT', `/api/users/${name}`, { token: admin, body: { permissions: ['power:read'] } })).status, 200);
      await publish(gw, admin, [
        { name: 'DeviceStatusChanged', payload: { deviceId: 'd1', online: true, lastSeen: null } },
        { name: 'PowerStateChanged', payload: { deviceId: 'd1', powerState: 2 } },
      ]);
      await settle(connection);
      assert.deepEqual(
        received.map((r) => r.target),
        ['PowerStateChanged'],
        'devices:read was taken away before the events were published',
      );
      assert.equal(connection.state, HubConnectionState.Connected, 'the token still holds: the connection stays');
    } finally {
      await connection.stop();
    }
  });

  test("a negotiated connection belongs to its user's identity: a new user of the same name cannot claim it", async () => {
    const token = await gw.userWith(['devices:read'], 'hub-reused');
    const negotiated = await gw.request('POST', '/scanHub/negotiate?negotiateVersion=1', { token });
    const { connectionToken } = (await negotiated.json()) as { connectionToken: string };
    assert.equal((await gw.request('DELETE', '/api/users/hub-reused', { token: admin })).status, 204);
    const created = await gw.request('POST', '/api/users', { token: admin, body: { username: 'hub-reused', password: 'user-password-1', permissions: ['devices:read'] } });
    assert.equal(created.status, 201);
    const newcomer = await gw.login('hub-reused', 'user-password-1');
    const url = `${gw.url.replace(/^http/, 'ws')}/scanHub?id=${connectionToken}&access_token=${newcomer}`;
    assert.equal(await upgradeStatus(url), 403);
  });
});

describe('hub connections one user may hold', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startHubGateway({ hub: { maxConnections: 10, maxConnectionsPerUser: 3 } });
  });
  after(() => gw.cleanup());

  test("one user's connections, negotiated or open, count against its own bound: others still connect", async () => {
    const greedy = await gw.userWith([], 'hub-greedy');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await gw.request('POST', '/scanHub/negotiate?negotiateVersion=1', { token: greedy })).status);
    assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
    const refused = await gw.request('POST', '/scanHub/negotiate?negotiateVersion=1', { token: greedy });
    assert.equal(((await refused.json()) as { type: string }).type, 'urn:amt-gateway:problem:GW_ERR_HUB_USER_LIMIT');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    const url = `${gw.url.replace(/^http/, 'ws')}/scanHub?access_token=${greedy}`;
    assert.equal(await upgradeStatus(url), 429, 'a connection without negotiation counts too');
    const { connection } = await connectSignalR(gw.url, await gw.login());
    assert.equal(connection.state, HubConnectionState.Connected, "the admin's connection is not held back");
    await connection.stop();
  });
});
