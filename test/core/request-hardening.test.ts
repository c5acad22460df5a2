import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startTestGateway } from '../helpers/gateway-harness.js';

const rawJson = (gw: { url: string }, path: string, token: string, bytes: Buffer) =>
  fetch(gw.url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: bytes });

test('a JSON body that is not valid UTF-8 is refused with 400 and nothing is stored; a literal U+FFFD is fine', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'] });
  try {
    const token = await gw.login();
    const head = Buffer.from('{"name":"caf');
    const tail = Buffer.from('","username":"admin","password":"P@ssw0rd1"}');
    for (const bad of [Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0xe2, 0x82])]) {
      const res = await rawJson(gw, '/api/credentials', token, Buffer.concat([head, bad, tail]));
      assert.equal(res.status, 400);
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      const problem = (await res.json()) as { type: string; detail: string };
      assert.match(problem.type, /GW_ERR_INVALID_UTF8$/);
      assert.match(problem.detail, /not valid UTF-8/);
    }
    assert.deepEqual(await (await gw.request('GET', '/api/credentials', { token })).json(), [], 'nothing was stored');
    const fine = await rawJson(gw, '/api/credentials', token, Buffer.concat([head, Buffer.from('é\uFFFD', 'utf8'), tail]));
    assert.equal(fine.status, 201);
    assert.equal(((await fine.json()) as { name: string }).name, 'café\uFFFD');
  } finally {
    await gw.cleanup();
  }
});

test('user names with NUL or control characters are refused by the schema with a clear 400', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'] });
  try {
    const token = await gw.login();
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['/api/auth/login', { username: 'admin\u0000', password: 'whatever' }, 'body.username'],
      ['/api/auth/login', { username: 'ad\u001bmin', password: 'whatever' }, 'body.username'],
      ['/api/users', { username: 'bob\u0000', password: 'long-enough-1', permissions: [] }, 'body.username'],
      ['/api/credentials', { username: 'ad\u0000min', password: 'P@ssw0rd1' }, 'body.username'],
      ['/api/credentials', { username: 'admin\u007f', password: 'P@ssw0rd1' }, 'body.username'],
    ];
    for (const [path, body, field] of cases) {
      const res = await gw.request('POST', path, { token, body });
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body.username)}`);
      const problem = (await res.json()) as { errors: Array<{ path: string; message: string }> };
      const error = problem.errors.find((e) => e.path === field);
      assert.ok(error, `the error names ${field}`);
      assert.match(error.message, /control characters|letters, digits/);
    }
    assert.equal((await gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: 'wrong-one' } })).status, 401, 'ordinary names still reach the check');
  } finally {
    await gw.cleanup();
  }
});

test('a 20 KB query string gets 431 with a problem+json body; malformed HTTP gets a problem+json 400', async () => {
  const gw = await startTestGateway();
  try {
    const res = await fetch(`${gw.url}/api/health?q=${'a'.repeat(20 * 1024)}`);
    assert.equal(res.status, 431);
    assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
    const problem = (await res.json()) as { status: number; type: string; detail: string };
    assert.equal(problem.status, 431);
    assert.match(problem.type, /GW_ERR_HEADERS_TOO_LARGE$/);
    assert.match(problem.detail, /exceed 16384 bytes/);
    const { port } = new URL(gw.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(raw, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(raw, /Content-Type: application\/problem\+json/);
    assert.match(raw, /"status":400/);
    assert.equal((await fetch(`${gw.url}/api/health`)).status, 200, 'the listener keeps serving');
  } finally {
    await gw.cleanup();
  }
});
