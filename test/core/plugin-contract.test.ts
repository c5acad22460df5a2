import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { startTestGateway } from '../helpers/gateway-harness.js';

const EXAMPLE = fileURLToPath(new URL('../fixtures/plugins/example-plugin/', import.meta.url));
const example = (options: Record<string, unknown> = {}) => ({ plugins: { 'example-plugin': { enable: true, path: EXAMPLE, options } } });

test('a third-party plugin loaded by path gets routes, validated config, its store, the bus, the pool and teardown', async () => {
  const logs: string[] = [];
  const gw = await startTestGateway({ plugins: ['route-permissions'], overrides: example({ greeting: 'hi there' }), logs });
  try {
    assert.ok(gw.gateway.plugins.includes('example-plugin'));
    const reader = await gw.userWith(['example:read']);
    const outsider = await gw.userWith([]);

    let res = await gw.request('GET', '/api/example-plugin/greeting', { token: reader });
    assert.deepEqual(await res.json(), { greeting: 'hi there' });
    res = await gw.request('GET', '/api/example-plugin/greeting', { token: outsider });
    assert.equal(res.status, 403);

    res = await gw.request('PUT', '/api/example-plugin/notes/n1', { token: reader, body: { text: 'first note' } });
    assert.equal(res.status, 200);
    res = await gw.request('PUT', '/api/example-plugin/notes/n2', { token: reader, body: { text: '' } });
    assert.equal(res.status, 400);
    const problem = (await res.json()) as { errors: Array<{ path: string }> };
    assert.deepEqual(problem.errors.map((e) => e.path), ['body.text']);
    res = await gw.request('GET', '/api/example-plugin/notes/n1', { token: reader });
    assert.equal(((await res.json()) as { text: string }).text, 'first note');
    res = await gw.request('GET', '/api/example-plugin/events-seen', { token: reader });
    assert.deepEqual(await res.json(), ['n1']);

    res = await gw.request('GET', '/api/example-plugin/checksum?text=abcd', { token: reader });
    const sum = (await res.json()) as { sum: number; threadId: number; progress: number[] };
    assert.equal(sum.sum, 97 + 98 + 99 + 100);
    assert.notEqual(sum.threadId, threadId, 'the task ran in a worker thread');
    assert.deepEqual(sum.progress, [25, 50, 75, 100]);

    res = await gw.request('GET', '/api/routes', { token: reader });
    assert.deepEqual(((await res.json()) as Array<{ name: string }>).map((r) => r.name), ['home', 'example'], 'the plugin contributes its front-end route');

    // Errors are recognised by shape: this one is not an instance of the kernel's HttpError.
    res = await gw.request('GET', '/api/example-plugin/errors/not-found', { token: reader });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('x-example-hint'), 'try another');
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.deepEqual(await res.json(), { type: 'urn:amt-gateway:problem:EXAMPLE_ERR_NO_WIDGET', title: 'Not Found', status: 404, detail: 'no widget here' });
    res = await gw.request('GET', '/api/example-plugin/errors/hidden', { token: reader });
    assert.equal(res.status, 409, 'statusCode is read as well as status');
    const hidden = (await res.json()) as { type: string; detail: string };
    assert.equal(hidden.type, 'urn:amt-gateway:problem:EXAMPLE_ERR_BUSY');
    assert.doesNotMatch(hidden.detail, /internal detail/, 'an error with expose: false keeps its message to itself');
  } finally {
    await gw.cleanup();
  }
  assert.ok(logs.some((l) => l.includes('example plugin closed')), 'teardown ran');
});

test("a plugin's config is validated against its schema and defaults are applied", async () => {
  await assert.rejects(startTestGateway({ overrides: example({ greeting: '' }) }), {
    code: 'GW_ERR_CONFIG',
    message: /plugins\.example-plugin\.options\.greeting must NOT have fewer than 1 characters/,
  });
  await assert.rejects(startTestGateway({ overrides: example({ colour: 'red' }) }), { message: /plugins\.example-plugin\.options\.colour is not an allowed property/ });
  const gw = await startTestGateway({ overrides: example() });
  try {
    const token = await gw.login();
    const res = await gw.request('GET', '/api/example-plugin/greeting', { token });
    assert.deepEqual(await res.json(), { greeting: 'hello' });
  } finally {
    await gw.cleanup();
  }
});

test('start-up errors name the plugins involved', async () => {
  await assert.rejects(startTestGateway({ overrides: { plugins: { 'no-such-plugin': { enable: true } } } }), {
    code: 'GW_ERR_PLUGIN_UNKNOWN',
    message: /plugin 'no-such-plugin' is not built in/,
  });
  await assert.rejects(startTestGateway({ overrides: { plugins: { 'renamed': { enable: true, path: EXAMPLE } } } }), {
    code: 'GW_ERR_PLUGIN_NAME',
    message: /declares the name 'example-plugin' but is configured as 'renamed'/,
  });
  await assert.rejects(startTestGateway({ overrides: { plugins: { core: { enable: true, path: EXAMPLE } } } }), {
    code: 'GW_ERR_PLUGIN_NAME',
    message: /no plugin may be called 'core'/,
  });
  await assert.rejects(startTestGateway({ overrides: { plugins: { 'broken': { enable: true, path: '/nonexistent/plugin.ts' } } } }), {
    code: 'GW_ERR_PLUGIN_LOAD',
    message: /plugin 'broken' could not be loaded/,
  });
});

test('a missing or circular dependency stops start-up naming the plugins', async () => {
  const dir = fileURLToPath(new URL('../fixtures/plugins/ordering/', import.meta.url));
  await assert.rejects(startTestGateway({ overrides: { plugins: { 'needs-missing': { enable: true, path: dir + 'needs-missing.ts' } } } }), {
    code: 'GW_ERR_PLUGIN_DEPENDENCY_MISSING',
    message: "dependency 'rest-api' of plugin 'needs-missing' is not enabled",
  });
  await assert.rejects(
    startTestGateway({ overrides: { plugins: { 'cycle-a': { enable: true, path: dir + 'cycle-a.ts' }, 'cycle-b': { enable: true, path: dir + 'cycle-b.ts' } } } }),
    { code: 'GW_ERR_PLUGIN_DEPENDENCY_CYCLE', message: /cycle-a -> cycle-b -> cycle-a/ },
  );
  await assert.rejects(startTestGateway({ overrides: { plugins: { 'future-kernel': { enable: true, path: dir + 'future-kernel.ts' } } } }), {
    code: 'GW_ERR_PLUGIN_KERNEL',
    message: /plugin 'future-kernel' requires kernel API 2/,
  });
});

test('a plugin that does not declare the kernel API it works with is refused, with the reason', async () => {
  const dir = fileURLToPath(new URL('../fixtures/plugins/ordering/', import.meta.url));
  await assert.rejects(startTestGateway({ overrides: { plugins: { 'no-kernel': { enable: true, path: dir + 'no-kernel.ts' } } } }), {
    code: 'GW_ERR_PLUGIN_KERNEL',
    message: /plugin 'no-kernel' does not declare the kernel API it works with; add kernel: '1'/,
  });
});

test('each permission has one owner: one declared twice stops start-up naming both owners', async () => {
  const dir = fileURLToPath(new URL('../fixtures/plugins/ordering/', import.meta.url));
  await assert.rejects(
    startTestGateway({ plugins: ['rest-api'], overrides: { plugins: { 'permission-copy': { enable: true, path: dir + 'permission-copy.ts' } } } }),
    { code: 'GW_ERR_PERMISSION_CLASH', message: "the permission 'devices:read' is declared by both plugin 'devices' and plugin 'permission-copy'" },
  );
  await assert.rejects(
    startTestGateway({ overrides: { plugins: { 'kernel-permission-copy': { enable: true, path: dir + 'kernel-permission-copy.ts' } } } }),
    { code: 'GW_ERR_PERMISSION_CLASH', message: "the permission 'users:manage' is declared by both the kernel and plugin 'kernel-permission-copy'" },
  );
});

test("a disabled plugin's permissions do not exist: they cannot be granted and wildcard users do not get them", async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'] });
  try {
    const admin = await gw.login();
    const me = (await (await gw.request('GET', '/api/auth/me', { token: admin })).json()) as { permissions: string[] };
    assert.ok(me.permissions.includes('devices:read') && me.permissions.includes('users:manage'));
    for (const absent of ['power:read', 'monitor:read', 'mps:read', 'remote:connect']) assert.ok(!me.permissions.includes(absent), absent);
    const res = await gw.request('POST', '/api/users', { token: admin, body: { username: 'pat', password: 'pat-password-1', permissions: ['power:control'] } });
    assert.equal(res.status, 400);
    assert.match(JSON.stringify(await res.json()), /'power:control' is not a known permission/);
  } finally {
    await gw.cleanup();
  }
});

test('shutdown finishes within its bound even with WebSocket clients that stay connected', async () => {
  const { WebSocket } = await import('ws');
  const gw = await startTestGateway({ overrides: { ...example(), server: { shutdownTimeoutMs: 500 } } });
  const ws = new WebSocket(gw.url.replace('http', 'ws') + '/example-ws');
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const echoed = new Promise((resolve) => ws.once('message', (data) => resolve(String(data))));
  ws.send('ping');
  assert.equal(await echoed, 'ping');
  const closed = new Promise((resolve) => ws.once('close', resolve));
  const t0 = performance.now();
  await gw.cleanup();
  assert.ok(performance.now() - t0 < 5000, 'stop did not wait for the WebSocket client');
  await closed;
});

test('a request body may reference a schema the plugin added, whatever the case of its name', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'], overrides: example() });
  try {
    const token = await gw.login();
    const good = await gw.request('PUT', '/api/example-plugin/tagged/n1', { token, body: { note: { text: 'hi', createdAt: 'now' } } });
    assert.equal(good.status, 200, await good.clone().text());
    const bad = await gw.request('PUT', '/api/example-plugin/tagged/n1', { token, body: { note: { text: 'hi' } } });
    assert.equal(bad.status, 400);
    assert.deepEqual(((await bad.json()) as { errors: Array<{ path: string }> }).errors.map((e) => e.path), ['body.note.createdAt']);
  } finally {
    await gw.cleanup();
  }
});
