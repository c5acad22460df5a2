import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_PASSWORD, startTestGateway, type TestGateway } from '../helpers/gateway-harness.js';
import { SWAGGER_ASSET_BASE, SWAGGER_ASSET_VERSION } from '../../core/http/swagger-assets.js';

let gw: TestGateway;

before(async () => {
  gw = await startTestGateway({ plugins: ['rest-api'] });
});

after(async () => {
  await gw?.cleanup();
});

function assertNotStoredNorSniffed(res: Response, what: string): void {
  assert.equal(res.headers.get('cache-control'), 'no-store', `${what}: Cache-Control`);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', `${what}: X-Content-Type-Options`);
}

test('the login response with its token, its failures and /api/credentials are never stored by a cache, nor sniffed', async () => {
  const login = await gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
  assert.equal(login.status, 200);
  assertNotStoredNorSniffed(login, 'login');
  const { token } = (await login.json()) as { token: string };
  const refused = await gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: 'wrong-password' } });
  assert.equal(refused.status, 401);
  assertNotStoredNorSniffed(refused, 'a refused login (problem+json)');
  assert.equal((await gw.request('POST', '/api/credentials', { token, body: { username: 'admin', password: 'Header-Test-1!' } })).status, 201);
  const credentials = await gw.request('GET', '/api/credentials', { token });
  assert.equal(credentials.status, 200);
  assertNotStoredNorSniffed(credentials, '/api/credentials');
  assertNotStoredNorSniffed(await gw.request('GET', '/api/auth/me', { token }), '/api/auth/me');
  assertNotStoredNorSniffed(await gw.request('GET', '/api/no-such-route', { token }), 'a 404');
});

test('the docs page at /swagger and its document cannot be framed', async () => {
  for (const path of ['/swagger', '/swagger/', '/swagger/openapi.json', '/api/health']) {
    const res = await fetch(gw.url + path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('x-frame-options'), 'DENY', `${path}: X-Frame-Options`);
    assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, `${path}: CSP frame-ancestors`);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
    await res.arrayBuffer();
  }
  const page = await fetch(gw.url + '/swagger');
  assert.match(await page.text(), /swagger-ui/i, 'the page still renders Swagger UI');
});

test('the Swagger UI assets stay cacheable (a handler that sets its own Cache-Control keeps it)', async () => {
  const res = await fetch(`${gw.url}${SWAGGER_ASSET_BASE}/${SWAGGER_ASSET_VERSION}/swagger-ui-bundle.js`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('cache-control'), 'public, max-age=86400');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  await res.arrayBuffer();
});
