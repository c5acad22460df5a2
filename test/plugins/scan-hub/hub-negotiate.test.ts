import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestGateway } from '../../helpers/gateway-harness.js';
import { startHubGateway } from './hub-test-kit.js';
import { createAjv } from '../../../core/validation/validator.js';
import { NEGOTIATE_RESPONSE_SCHEMA } from '../../../plugins/scan-hub/negotiate-schema.js';

const FRONT_END = 'http://front-end.test:5173';

/** The negotiate answer's one schema (SignalR's shape, not in the OpenAPI document). */
const negotiateShape = createAjv().compile(NEGOTIATE_RESPONSE_SCHEMA);

describe('POST /scanHub/negotiate', () => {
  let gw: TestGateway;
  let token: string;

  before(async () => {
    gw = await startHubGateway({ overrides: { cors: { origins: [FRONT_END] } } });
    token = await gw.login();
  });
  after(() => gw.cleanup());

  test('answers version 1 with a connection id, a separate connection token and the WebSockets/Text transport', async () => {
    const res = await gw.request('POST', '/scanHub/negotiate?negotiateVersion=1', { token, headers: { 'X-Requested-With': 'XMLHttpRequest', 'X-SignalR-User-Agent': 'Microsoft SignalR/10.0 (10.0.11; Unknown OS; NodeJS; 20)' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const body = (await res.json()) as Record<string, unknown>;
    assert.ok(negotiateShape(body), JSON.stringify(negotiateShape.errors));
    assert.deepEqual(Object.keys(body).sort(), ['availableTransports', 'connectionId', 'connectionToken', 'negotiateVersion']);
    assert.equal(body.negotiateVersion, 1);
    assert.equal(typeof body.connectionId, 'string');
    assert.equal(typeof body.connectionToken, 'string');
    assert.notEqual(body.connectionId, body.connectionToken);
    assert.deepEqual(body.availableTransports, [{ transport: 'WebSockets', transferFormats: ['Text'] }]);
  });

  test('answers an old client (no negotiateVersion) with version 0 and the id to connect with as connectionId', async () => {
    const res = await gw.request('POST', '/scanHub/negotiate', { token });
    const body = (await res.json()) as Record<string, unknown>;
    assert.ok(negotiateShape(body), JSON.stringify(negotiateShape.errors));
    assert.equal(body.negotiateVersion, 0);
    assert.equal(body.connectionToken, undefined);
    assert.equal(typeof body.connectionId, 'string');
  });

  test('takes the token from the access_token query parameter too', async () => {
    const res = await gw.request('POST', `/scanHub/negotiate?negotiateVersion=1&access_token=${encodeURIComponent(token)}`);
    assert.equal(res.status, 200);
  });

  test('is 401 problem+json without a valid token, and the answer holds no token', async () => {
    for (const headers of [{}, { authorization: 'Bearer forged-token' }] as Array<Record<string, string>>) {
      const res = await gw.request('POST', '/scanHub/negotiate?negotiateVersion=1', { headers });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      const text = await res.text();
      assert.equal(text.includes('forged-token'), false);
      assert.equal((JSON.parse(text) as { status: number }).status, 401);
    }
  });

  test('takes POST only; a plain GET of /scanHub is told to use a WebSocket', async () => {
    const get = await gw.request('GET', '/scanHub/negotiate', { token });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const hub = await gw.request('GET', '/scanHub', { token });
    assert.equal(hub.status, 400);
    assert.match(((await hub.json()) as { detail: string }).detail, /WebSocket/);
  });

  test('answers a configured front end cross-origin, preflight included, and gives other origins no CORS headers', async () => {
    const preflight = await gw.request('OPTIONS', '/scanHub/negotiate?negotiateVersion=1', {
      headers: { Origin: FRONT_END, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,x-requested-with,x-signalr-user-agent' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), FRONT_END);
    for (const header of ['authorization', 'x-requested-with', 'x-signalr-user-agent']) {
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', new RegExp(header, 'i'));
    }
    const allowed = await gw.request('POST', '/scanHub/negotiate?negotiateVersion=1', { token, headers: { Origin: FRONT_END } });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), FRONT_END);
    assert.equal(allowed.headers.get('access-control-allow-credentials'), 'true');
    const foreign = await gw.request('POST', '/scanHub/negotiate?negotiateVersion=1', { token, headers: { Origin: 'http://elsewhere.test' } });
    assert.equal(foreign.headers.get('access-control-allow-origin'), null);
  });
});
