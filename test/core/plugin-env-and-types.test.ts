import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestGateway } from '../helpers/gateway-harness.js';

const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/plugins/${path}`, import.meta.url));
const TYPED = { 'typed-plugin': { enable: true, path: fixture('typed-plugin/') } };

test("a plugin's declared environment variables override its options, before they are validated", async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'], overrides: { plugins: TYPED }, env: { AMTGW_TYPED_GREETING: 'from the environment', AMTGW_TYPED_LIMIT: '7' } });
  try {
    const res = await gw.request('GET', '/api/typed-plugin/config', { token: await gw.login() });
    assert.deepEqual(await res.json(), { greeting: 'from the environment', limit: 7, note: null });
  } finally {
    await gw.cleanup();
  }
  await assert.rejects(startTestGateway({ plugins: ['rest-api'], overrides: { plugins: TYPED }, env: { AMTGW_TYPED_LIMIT: 'many' } }), {
    code: 'GW_ERR_CONFIG',
    message: /plugins\.typed-plugin\.options\.limit must be integer/,
  });
});

test("a plugin's environment variable does not enable it, and the kernel's list does not name it", async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'], env: { AMTGW_TYPED_GREETING: 'ignored', AMTGW_SOAP_PORT: '1', AMTGW_CIRA_PORT: '2', AMTGW_MONITOR_INTERVAL_S: '3' } });
  try {
    assert.deepEqual(gw.gateway.plugins, ['rest-api']);
    const { ENV_VARIABLES } = await import('../../core/config/env-overrides.js');
    for (const name of ['AMTGW_SOAP_PORT', 'AMTGW_CIRA_PORT', 'AMTGW_MONITOR_INTERVAL_S']) assert.ok(!ENV_VARIABLES.includes(name), `${name} is declared by its plugin`);
  } finally {
    await gw.cleanup();
  }
});

test('the built-in plugins declare their variables: AMTGW_SOAP_PORT moves the SOAP listener', async () => {
  const { createServer } = await import('node:net');
  const free = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const gw = await startTestGateway({ plugins: ['rest-api', 'remote-monitor', 'soap-mps'], env: { AMTGW_SOAP_PORT: String(free), AMTGW_MONITOR_INTERVAL_S: '0.5' } });
  try {
    const soap = gw.gateway.listeners.find((l) => l.plugin === 'soap-mps');
    assert.equal(soap && new URL(soap.url).port, String(free));
  } finally {
    await gw.cleanup();
  }
});

test('a variable declared by two plugins, or by a plugin and the kernel, stops start-up naming both', async () => {
  await assert.rejects(startTestGateway({ plugins: ['rest-api'], overrides: { plugins: { ...TYPED, 'env-clash': { enable: true, path: fixture('env-clash/') } } } }), {
    code: 'GW_ERR_PLUGIN_CLASH',
    message: /AMTGW_TYPED_GREETING of plugin 'typed-plugin' is read by plugin 'env-clash'|AMTGW_TYPED_GREETING of plugin 'env-clash' is read by plugin 'typed-plugin'/,
  });
  await assert.rejects(startTestGateway({ overrides: { plugins: { 'env-clash-kernel': { enable: true, path: fixture('env-clash/kernel-variable.ts') } } } }), {
    code: 'GW_ERR_PLUGIN_CLASH',
    message: /AMTGW_PORT of plugin 'env-clash-kernel' is read by the kernel/,
  });
});

test('a TypeBox route validates its body and query with the schemas its handler is typed from', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'], overrides: { plugins: TYPED } });
  try {
    const token = await gw.login();
    let res = await gw.request('POST', '/api/typed-plugin/items/d1?repeat=2&shout=true', { token, body: { name: 'lamp', count: 3 } });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { id: 'd1', items: ['LAMP', 'LAMP'], count: 3, knownDevice: false });
    res = await gw.request('POST', '/api/typed-plugin/items/d1', { token, body: { name: 'lamp', count: 1 } });
    assert.deepEqual(((await res.json()) as { items: string[] }).items, ['lamp'], 'the query default applies');
    res = await gw.request('POST', '/api/typed-plugin/items/d1', { token, body: { name: '', count: 1, colour: 'red' } });
    assert.equal(res.status, 400);
    const problem = (await res.json()) as { errors: Array<{ path: string }> };
    assert.deepEqual(problem.errors.map((e) => e.path).sort(), ['body.colour', 'body.name']);
    res = await gw.request('POST', '/api/typed-plugin/items/d1?repeat=9', { token, body: { name: 'lamp', count: 1 } });
    assert.equal(res.status, 400);
    res = await gw.request('POST', '/api/typed-plugin/items/d1', { token, body: { name: 'lamp', count: 11 } });
    assert.equal(res.status, 404, 'the config default limit (10) reached the handler');

    type Operation = { requestBody?: { content: Record<string, { schema: unknown }> }; parameters: Array<{ name: string; in: string; required: boolean }> };
    const openapi = (await (await gw.request('GET', '/swagger/openapi.json')).json()) as { paths: Record<string, Record<string, Operation>> };
    const operation = openapi.paths['/api/typed-plugin/items/{id}']?.post;
    // `repeat` is required in the schema (its default is applied first, so its type is `number`), yet no client must send it.
    assert.deepEqual(operation?.parameters.map(({ name, in: where, required }) => ({ name, where, required })), [
      { name: 'id', where: 'path', required: true },
      { name: 'repeat', where: 'query', required: false },
      { name: 'shout', where: 'query', required: false },
    ]);
    const body = operation?.requestBody?.content['application/json']?.schema;
    assert.deepEqual(body, JSON.parse(JSON.stringify({ additionalProperties: false, type: 'object', properties: { name: { minLength: 1, maxLength: 40, type: 'string' }, count: { minimum: 0, type: 'integer' } }, required: ['name', 'count'] })));
  } finally {
    await gw.cleanup();
  }
});
