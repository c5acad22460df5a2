import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, fetch as undiciFetch } from 'undici';
import { startTestGateway } from '../helpers/gateway-harness.js';
import { makeTestCertificate } from '../helpers/test-certificate.js';

const FRONT_END = 'https://console.example.test';

test('CORS answers the configured origin (preflight included) and gives other origins nothing', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api', 'scan-hub'], env: { AMTGW_CORS_ORIGINS: `${FRONT_END}, http://localhost:5173` } });
  try {
    let res = await gw.request('OPTIONS', '/api/devices', { headers: { origin: FRONT_END, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), FRONT_END);
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /DELETE/);
    res = await gw.request('OPTIONS', '/scanHub/negotiate', { headers: { origin: FRONT_END, 'access-control-request-method': 'POST' } });
    assert.equal(res.headers.get('access-control-allow-origin'), FRONT_END, 'the hub is covered too');
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /X-SignalR-User-Agent/, 'the header the hub registered');

    const token = await gw.login();
    res = await gw.request('GET', '/api/devices', { token, headers: { origin: FRONT_END } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), FRONT_END);
    assert.match(res.headers.get('access-control-expose-headers') ?? '', /X-Total-Count/);
    res = await gw.request('GET', '/api/devices', { headers: { origin: FRONT_END } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('access-control-allow-origin'), FRONT_END, 'errors carry CORS headers so the front end can read them');

    const evil = 'https://evil.example.test';
    res = await gw.request('OPTIONS', '/api/devices', { headers: { origin: evil, 'access-control-request-method': 'GET' } });
    assert.notEqual(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    res = await gw.request('GET', '/api/devices', { token, headers: { origin: evil } });
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.equal(res.headers.get('access-control-expose-headers'), null);
  } finally {
    await gw.cleanup();
  }
});

test('what CORS covers, allows and exposes comes from the enabled plugins, not from the kernel', async () => {
  const gw = await startTestGateway({ plugins: ['route-permissions'], env: { AMTGW_CORS_ORIGINS: FRONT_END } });
  try {
    let res = await gw.request('OPTIONS', '/scanHub/negotiate', { headers: { origin: FRONT_END, 'access-control-request-method': 'POST' } });
    assert.equal(res.headers.get('access-control-allow-origin'), null, 'no hub plugin: /scanHub is not a cross-origin path');
    res = await gw.request('OPTIONS', '/api/routes', { headers: { origin: FRONT_END, 'access-control-request-method': 'GET' } });
    assert.equal(res.status, 204);
    assert.doesNotMatch(res.headers.get('access-control-allow-headers') ?? '', /SignalR/);
    res = await gw.request('GET', '/api/routes', { token: await gw.login(), headers: { origin: FRONT_END } });
    assert.equal(res.headers.get('access-control-allow-origin'), FRONT_END);
    assert.equal(res.headers.get('access-control-expose-headers'), 'X-Request-Id', 'no enabled route documents X-Total-Count');
  } finally {
    await gw.cleanup();
  }
});

test('with a certificate and key configured the listener speaks HTTPS', async () => {
  const { certFile, keyFile, certPem } = await makeTestCertificate();
  const gw = await startTestGateway({ env: { AMTGW_TLS_CERT: certFile, AMTGW_TLS_KEY: keyFile } });
  try {
    assert.match(gw.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const dispatcher = new Agent({ connect: { ca: certPem } });
    const res = await undiciFetch(`${gw.url}/api/health`, { dispatcher });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { status: string }).status, 'ok');
    await assert.rejects(fetch(gw.url.replace('https', 'http') + '/api/health'));
    await dispatcher.close();
  } finally {
    await gw.cleanup();
  }
});

test('bad bodies get a problem, never a 500: malformed JSON 400, too large 413, wrong type 415', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'], overrides: { server: { bodyLimitBytes: 2048 } } });
  try {
    const token = await gw.login();
    let res = await gw.request('POST', '/api/credentials', { token, body: '{"username": "a", "password": ' });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { type: string }).type, 'urn:amt-gateway:problem:GW_ERR_MALFORMED_JSON');
    res = await gw.request('POST', '/api/credentials', { token, body: { username: 'a', password: 'x'.repeat(4096) } });
    assert.equal(res.status, 413);
    res = await gw.request('POST', '/api/credentials', { token, body: 'username=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(res.status, 415);
    res = await gw.request('POST', '/api/credentials', { token, body: '[1,2]' });
    assert.equal(res.status, 400);
    const problem = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(problem).sort(), ['detail', 'errors', 'status', 'title', 'type']);
  } finally {
    await gw.cleanup();
  }
});

test('each request is logged as one JSON line with id, method, path, status and duration, without tokens', async () => {
  const logs: string[] = [];
  const gw = await startTestGateway({ plugins: ['rest-api'], logs });
  try {
    const token = await gw.login();
    await gw.request('GET', `/api/devices?access_token=${token}`, { token, headers: { 'x-request-id': 'req-123' } });
    const line = logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'request' && l.requestId === 'req-123');
    assert.ok(line);
    assert.equal(line.method, 'GET');
    assert.equal(line.path, '/api/devices');
    assert.equal(line.status, 200);
    assert.equal(typeof line.durationMs, 'number');
    assert.equal(line.user, 'admin');
    assert.equal(logs.some((l) => l.includes(token)), false);
  } finally {
    await gw.cleanup();
  }
});
