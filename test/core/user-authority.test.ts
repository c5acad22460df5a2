import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_PASSWORD, startTestGateway, type TestGateway } from '../helpers/gateway-harness.js';

const PROBLEM = 'urn:amt-gateway:problem:';

async function problemCode(res: Response): Promise<string> {
  return ((await res.json()) as { type: string }).type.replace(PROBLEM, '');
}

async function createUser(gw: TestGateway, token: string, username: string, permissions: string[]): Promise<Response> {
  return gw.request('POST', '/api/users', { token, body: { username, password: `${username}-password`, permissions } });
}

test('a user holding only users:manage cannot make itself or anyone admin, nor take over the admin', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'] });
  try {
    const manager = await gw.userWith(['users:manage'], 'manager');
    let res = await gw.request('PUT', '/api/users/manager', { token: manager, body: { permissions: ['*'] } });
    assert.equal(res.status, 403, 'granting itself *');
    assert.equal(await problemCode(res), 'GW_ERR_PERMISSION_NOT_HELD');
    res = await createUser(gw, manager, 'root2', ['*']);
    assert.equal(res.status, 403, 'creating a * user');
    assert.equal(await problemCode(res), 'GW_ERR_PERMISSION_NOT_HELD');
    res = await createUser(gw, manager, 'reader', ['devices:read']);
    assert.equal(res.status, 403, 'granting a permission it lacks');
    assert.match(((await res.json()) as { detail: string }).detail, /'devices:read'/);
    res = await gw.request('PUT', '/api/users/admin', { token: manager, body: { password: 'taken-over-1' } });
    assert.equal(res.status, 403, "changing the admin's password");
    assert.equal(await problemCode(res), 'GW_ERR_USER_OUTRANKS_YOU');
    res = await gw.request('PUT', '/api/users/admin', { token: manager, body: { permissions: ['users:manage'] } });
    assert.equal(res.status, 403, "stripping the admin's permissions");
    assert.equal((await gw.request('DELETE', '/api/users/admin', { token: manager })).status, 403, 'deleting the admin');
    await gw.login('admin', ADMIN_PASSWORD);
    assert.equal((await gw.request('GET', '/api/users/manager', { token: await gw.login() })).status, 200);
    assert.deepEqual(((await (await gw.request('GET', '/api/users/manager', { token: await gw.login() })).json()) as { permissions: string[] }).permissions, ['users:manage']);

    // Within what it holds, it manages users as before.
    assert.equal((await createUser(gw, manager, 'deputy', ['users:manage'])).status, 201);
    assert.equal((await gw.request('PUT', '/api/users/deputy', { token: manager, body: { password: 'deputy-password-2' } })).status, 200);
    await gw.login('deputy', 'deputy-password-2');
    assert.equal((await gw.request('DELETE', '/api/users/deputy', { token: manager })).status, 204);
  } finally {
    await gw.cleanup();
  }
});

test("a manager may change a user only when it holds every one of that user's permissions", async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'] });
  try {
    const manager = await gw.userWith(['users:manage', 'devices:read'], 'manager');
    const admin = await gw.login();
    assert.equal((await createUser(gw, admin, 'writer', ['credentials:write'])).status, 201);
    assert.equal((await createUser(gw, manager, 'reader', ['devices:read'])).status, 201, 'a permission it holds can be granted');
    let res = await gw.request('PUT', '/api/users/writer', { token: manager, body: { password: 'writer-password-2' } });
    assert.equal(res.status, 403);
    assert.equal(await problemCode(res), 'GW_ERR_USER_OUTRANKS_YOU');
    res = await gw.request('PUT', '/api/users/reader', { token: manager, body: { permissions: ['devices:read', 'credentials:write'] } });
    assert.equal(res.status, 403);
    assert.equal(await problemCode(res), 'GW_ERR_PERMISSION_NOT_HELD');
    assert.equal((await gw.request('PUT', '/api/users/reader', { token: manager, body: { permissions: [] } })).status, 200);
    assert.equal((await gw.request('PUT', '/api/users/writer', { token: admin, body: { permissions: ['*'] } })).status, 200, 'a holder of * grants anything');
  } finally {
    await gw.cleanup();
  }
});

const ROUNDS = 30;

test(`two managers deleting each other at once never leave the gateway without a manager (${ROUNDS} rounds)`, async () => {
  const gw = await startTestGateway();
  try {
    const admin = await gw.login();
    // The admin steps down to users:manage only, so that the two managers of each round are equals.
    assert.equal((await createUser(gw, admin, 'm0', ['users:manage'])).status, 201);
    assert.equal((await gw.request('PUT', '/api/users/admin', { token: admin, body: { permissions: [] } })).status, 200);
    let survivor = { name: 'm0', token: await gw.login('m0', 'm0-password') };
    for (let round = 1; round <= ROUNDS; round++) {
      const name = `m${round}`;
      assert.equal((await createUser(gw, survivor.token, name, ['users:manage'])).status, 201);
      const other = { name, token: await gw.login(name, `${name}-password`) };
      const [a, b] = await Promise.all([
        gw.request('DELETE', `/api/users/${other.name}`, { token: survivor.token }),
        gw.request('DELETE', `/api/users/${survivor.name}`, { token: other.token }),
      ]);
      const statuses = [a.status, b.status];
      assert.equal(statuses.filter((s) => s === 204).length, 1, `round ${round}: exactly one deletion went through (${statuses.join(', ')})`);
      survivor = a.status === 204 ? survivor : other;
      assert.ok([401, 403].includes(a.status === 204 ? b.status : a.status), `round ${round}: the deleted manager's own request is refused (${statuses.join(', ')})`);
      const users = (await (await gw.request('GET', '/api/users', { token: survivor.token })).json()) as Array<{ username: string; permissions: string[] }>;
      assert.deepEqual(users.filter((u) => u.permissions.includes('users:manage')).map((u) => u.username), [survivor.name], `round ${round}`);
    }
  } finally {
    await gw.cleanup();
  }
});

test(`two managers stepping down at once: exactly one of them does (${ROUNDS} rounds)`, async () => {
  const gw = await startTestGateway();
  try {
    const admin = await gw.login();
    for (let round = 1; round <= ROUNDS; round++) {
      const names = [`a${round}`, `b${round}`];
      for (const name of names) assert.equal((await createUser(gw, admin, name, ['users:manage'])).status, 201);
      assert.equal((await gw.request('PUT', '/api/users/admin', { token: admin, body: { permissions: [] } })).status, 200, 'the admin steps aside for the race');
      const tokens = await Promise.all(names.map((n) => gw.login(n, `${n}-password`)));
      const results = await Promise.all(names.map((n, i) => gw.request('PUT', `/api/users/${n}`, { token: tokens[i], body: { permissions: [] } })));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 409], `round ${round}: exactly one stepped down`);
      const keptToken = tokens[results.findIndex((r) => r.status === 409)]!;
      assert.equal((await gw.request('PUT', '/api/users/admin', { token: keptToken, body: { permissions: ['users:manage'] } })).status, 200);
      for (const name of names) assert.equal((await gw.request('DELETE', `/api/users/${name}`, { token: admin })).status, 204);
    }
  } finally {
    await gw.cleanup();
  }
});
