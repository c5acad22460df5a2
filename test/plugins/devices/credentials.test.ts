import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestGateway } from '../../helpers/gateway-harness.js';

interface Credential {
  id: string;
  name: string;
  username: string;
  isDefault: boolean;
  createdAt: string;
  updatedAt: string;
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

test('credential CRUD keeps exactly one default and never returns the password', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'] });
  try {
    const token = await gw.login();
    const create = async (body: Record<string, unknown>) => {
      const res = await gw.request('POST', '/api/credentials', { token, body });
      assert.equal(res.status, 201, await res.clone().text());
      const text = await res.text();
      assert.equal(text.includes(String(body.password)), false, 'the password is not in the response');
      return JSON.parse(text) as Credential;
    };
    const first = await create({ username: 'admin', password: 'Secret-One-111' });
    assert.equal(first.isDefault, true, 'the first credential becomes the default');
    assert.equal(first.name, 'admin');
    assert.deepEqual(Object.keys(first).sort(), ['createdAt', 'id', 'isDefault', 'name', 'updatedAt', 'username']);
    const second = await create({ name: 'lab', username: 'admin', password: 'Secret-Two-222' });
    assert.equal(second.isDefault, false);
    const third = await create({ name: 'branch', username: 'operator', password: 'Secret-Three-333', isDefault: true });
    assert.equal(third.isDefault, true);

    let list = (await (await gw.request('GET', '/api/credentials', { token })).json()) as Credential[];
    assert.deepEqual(list.filter((c) => c.isDefault).map((c) => c.id), [third.id], 'setting a default cleared the others');
    assert.equal(list[0]!.id, third.id, 'the default comes first');

    let res = await gw.request('PUT', `/api/credentials/${second.id}`, { token, body: { isDefault: true, password: 'Secret-Two-changed' } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as Credential).isDefault, true);
    list = (await (await gw.request('GET', '/api/credentials', { token })).json()) as Credential[];
    assert.deepEqual(list.filter((c) => c.isDefault).map((c) => c.id), [second.id]);

    const concurrent = await Promise.all(list.map((c) => gw.request('PUT', `/api/credentials/${c.id}`, { token, body: { isDefault: true } })));
    assert.ok(concurrent.every((r) => r.status === 200));
    list = (await (await gw.request('GET', '/api/credentials', { token })).json()) as Credential[];
    assert.equal(list.filter((c) => c.isDefault).length, 1, 'concurrent default changes still leave one default');

    res = await gw.request('PUT', `/api/credentials/${first.id}`, { token, body: { password: '' } });
    assert.equal(res.status, 400);
    res = await gw.request('PUT', `/api/credentials/${first.id}`, { token, body: { colour: 'red' } });
    assert.equal(res.status, 400);
    res = await gw.request('POST', '/api/credentials', { token, body: { username: 'x', password: 'Secret-Four-444', extra: true } });
    const problem = await res.text();
    assert.equal(res.status, 400);
    assert.equal(problem.includes('Secret-Four-444'), false, 'the password is not echoed in the error');
    res = await gw.request('PUT', '/api/credentials/unknown-id', { token, body: { name: 'x' } });
    assert.equal(res.status, 404);

    assert.equal((await gw.request('DELETE', `/api/credentials/${first.id}`, { token })).status, 204);
    assert.equal((await gw.request('DELETE', `/api/credentials/${first.id}`, { token })).status, 404);
    list = (await (await gw.request('GET', '/api/credentials', { token })).json()) as Credential[];
    assert.equal(list.length, 2);
  } finally {
    await gw.cleanup();
  }
});

test('passwords are sealed at rest: no plaintext anywhere in the data directory, and they survive a restart', async () => {
  const logs: string[] = [];
  const gw = await startTestGateway({ plugins: ['rest-api'], logs });
  const passwords = ['Plaintext-Canary-7f3a9', 'Second-Canary-Password-42'];
  try {
    const token = await gw.login();
    for (const password of passwords) {
      assert.equal((await gw.request('POST', '/api/credentials', { token, body: { username: 'admin', password } })).status, 201);
    }
  } finally {
    await gw.stop();
  }
  for (const file of await filesUnder(gw.dataDir)) {
    const bytes = await readFile(file);
    for (const password of passwords) {
      assert.equal(bytes.includes(Buffer.from(password)), false, `${password} found in ${file}`);
      assert.equal(bytes.includes(Buffer.from(password, 'utf16le')), false, `${password} (UTF-16) found in ${file}`);
    }
  }
  for (const password of passwords) assert.equal(logs.some((l) => l.includes(password)), false, 'not in the log');
  const again = await startTestGateway({ plugins: ['rest-api'], dataDir: gw.dataDir, masterKey: gw.masterKey });
  try {
    const list = (await (await again.request('GET', '/api/credentials', { token: await again.login() })).json()) as Credential[];
    assert.equal(list.length, 2);
  } finally {
    await again.cleanup();
    await gw.cleanup();
  }
});
