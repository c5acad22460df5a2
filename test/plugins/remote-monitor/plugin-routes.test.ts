/**
 * The power and monitoring plugins' front-end routes show only to users holding their permissions,
 * and with the plugins disabled their front-end routes, API routes and OpenAPI paths are gone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../../helpers/gateway-harness.js';

type Route = { name: string; path: string; meta: { permission: string | null } };

test('the power and monitoring routes show only to users who may use them', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api', 'route-permissions', 'power-mgmt', 'remote-monitor'] });
  try {
    const names = async (token: string) => ((await (await gw.request('GET', '/api/routes', { token })).json()) as Route[]).map((r) => r.name);
    assert.deepEqual(await names(await gw.userWith(['power:read'])), ['home', 'power']);
    assert.deepEqual(await names(await gw.userWith(['power:control'])), ['home']);
    assert.deepEqual(await names(await gw.userWith(['monitor:read'])), ['home', 'monitor']);
    const admin = (await (await gw.request('GET', '/api/routes', { token: await gw.login() })).json()) as Route[];
    assert.deepEqual(
      admin.filter((r) => r.name === 'monitor' || r.name === 'power').map((r) => [r.name, r.path, r.meta.permission]),
      [
        ['monitor', '/monitor', 'monitor:read'],
        ['power', '/power', 'power:read'],
      ],
    );
    const doc = (await (await gw.request('GET', '/swagger/openapi.json')).json()) as { paths: Record<string, unknown>; components: { schemas: Record<string, unknown> } };
    for (const path of ['/api/power/{deviceId}', '/api/power/bulk', '/api/monitor/online', '/api/monitor/summary', '/api/monitor/{deviceId}/hardware', '/api/monitor/{deviceId}/events']) {
      assert.ok(doc.paths[path], `${path} documented`);
    }
    for (const schema of ['PowerStatus', 'PowerChangeResult', 'PowerBulkResult', 'OnlineEntry', 'MonitorSummary', 'HardwareReport', 'MonitorEvent']) assert.ok(doc.components.schemas[schema], schema);
    const reader = await gw.userWith(['power:read']);
    const forbidden = await gw.request('POST', '/api/power/bulk', { token: reader, body: { deviceIds: ['x'], action: 'on' } });
    assert.equal(forbidden.status, 403);
  } finally {
    await gw.cleanup();
  }
});

test('with the plugins disabled their routes vanish', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api', 'route-permissions'] });
  try {
    const token = await gw.login();
    const routes = ((await (await gw.request('GET', '/api/routes', { token })).json()) as Route[]).map((r) => r.name);
    assert.ok(routes.includes('devices'));
    assert.ok(!routes.includes('power') && !routes.includes('monitor'), routes.join(', '));
    for (const path of ['/api/power/some-id', '/api/monitor/summary', '/api/monitor/online']) assert.equal((await gw.request('GET', path, { token })).status, 404, path);
    const doc = (await (await gw.request('GET', '/swagger/openapi.json')).json()) as { paths: Record<string, unknown> };
    assert.deepEqual(Object.keys(doc.paths).filter((p) => p.startsWith('/api/power') || p.startsWith('/api/monitor')), []);
  } finally {
    await gw.cleanup();
  }
});
