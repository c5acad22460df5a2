import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { builtInPluginNames } from '../../core/plugins/plugin-loader.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway-harness.js';

const EXAMPLE = fileURLToPath(new URL('../fixtures/plugins/example-plugin/', import.meta.url));

async function everyPlugin(): Promise<TestGateway> {
  return startTestGateway({
    plugins: builtInPluginNames(),
    overrides: { plugins: { 'example-plugin': { enable: true, path: EXAMPLE }, 'soap-mps': { options: { port: 0 } }, cira: { options: { port: 0 } } } },
  });
}

const concrete = (path: string) => path.replace(/:ip_address/g, '127.0.0.1').replace(/:[A-Za-z0-9_]+/g, 'some-id');

test('every route but login and health answers 401 without a valid token and 403 without its permission', async () => {
  const gw = await everyPlugin();
  try {
    const routes = gw.gateway.routes;
    assert.ok(routes.length > 15, `all plugins' routes are registered (${routes.length})`);
    const publicRoutes = routes.filter((r) => r.permission === 'public').map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(publicRoutes.sort(), ['get /api/health', 'get /api/health/ready', 'post /api/auth/login']);
    const permissions = [...new Set(routes.map((r) => r.permission).filter((p) => p !== 'public' && p !== 'authenticated'))];
    const admin = await gw.login();
    const allPermissions = ((await (await gw.request('GET', '/api/auth/me', { token: admin })).json()) as { permissions: string[] }).permissions;
    const lacking = new Map<string, string>();
    for (const permission of permissions) lacking.set(permission, await gw.userWith(allPermissions.filter((p) => p !== permission)));
    for (const route of routes.filter((r) => r.permission !== 'public')) {
      const path = concrete(route.path);
      const body = ['post', 'put', 'patch'].includes(route.method) ? {} : undefined;
      for (const token of [undefined, 'not-a-token']) {
        const res = await gw.request(route.method.toUpperCase(), path, { ...(token ? { token } : {}), body });
        assert.equal(res.status, 401, `${route.method} ${route.path} with ${token ?? 'no token'}`);
        assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      }
      if (route.permission === 'authenticated') continue;
      const res = await gw.request(route.method.toUpperCase(), path, { token: lacking.get(route.permission)!, body });
      assert.equal(res.status, 403, `${route.method} ${route.path} without ${route.permission}`);
      const problem = (await res.json()) as { detail: string };
      assert.match(problem.detail, new RegExp(route.permission));
    }
  } finally {
    await gw.cleanup();
  }
});

test('the OpenAPI document lists every registered route with its method, and /swagger serves the browser UI', async () => {
  const gw = await everyPlugin();
  try {
    const res = await gw.request('GET', '/swagger/openapi.json');
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    assert.equal(doc.openapi, '3.1.0');
    for (const route of gw.gateway.routes) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      assert.ok(doc.paths[path]?.[route.method], `${route.method.toUpperCase()} ${path} is documented`);
      if (route.permission !== 'public') assert.ok(doc.paths[path]![route.method]!.responses['401'], `${path} documents 401`);
    }
    // The earlier release's fixed paths and methods (CONTRACT, marked fixed) are all served and documented.
    const fixed: Array<[string, string]> = [
      ['post', '/api/scan/start'], ['post', '/api/scan/cancel/{id}'], ['get', '/api/devices'], ['delete', '/api/devices/{id}'],
      ['get', '/api/credentials'], ['post', '/api/credentials'], ['put', '/api/credentials/{id}'], ['delete', '/api/credentials/{id}'],
      ['get', '/api/test/test-credential'], ['get', '/api/test/test-wsman/{ip_address}'],
    ];
    for (const [method, path] of fixed) assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path} is documented`);
    const ui = await gw.request('GET', '/swagger');
    assert.equal(ui.status, 200);
    const page = await ui.text();
    const assets = [...page.matchAll(/(?:href|src)="([^"]+\.(?:css|js))"/g)].map((m) => m[1]!);
    assert.equal(assets.length, 3, 'the page loads the Swagger UI stylesheet and two scripts');
    for (const asset of assets) {
      assert.ok(asset.startsWith('/swagger/'), `${asset} is served by the gateway, not a CDN`);
      const res = await gw.request('GET', asset);
      assert.equal(res.status, 200, asset);
      assert.ok((await res.arrayBuffer()).byteLength > 1000, asset);
    }
  } finally {
    await gw.cleanup();
  }
});

test('the route list shows each user only what their permissions allow, home always first', async () => {
  const gw = await everyPlugin();
  try {
    const names = async (token: string) => ((await (await gw.request('GET', '/api/routes', { token })).json()) as Array<{ name: string; path: string; meta: { permission: string | null } }>);
    const nobody = await names(await gw.userWith([]));
    assert.deepEqual(nobody.map((r) => r.name), ['home']);
    assert.equal(nobody[0]!.path, '/');
    const reader = await names(await gw.userWith(['devices:read', 'example:read']));
    assert.equal(reader[0]!.name, 'home');
    assert.ok(reader.some((r) => r.name === 'devices'));
    assert.ok(reader.some((r) => r.name === 'example'));
    assert.ok(!reader.some((r) => r.name === 'credentials' || r.name === 'scan'));
    for (const route of reader.slice(1)) assert.ok(['devices:read', 'example:read'].includes(route.meta.permission ?? ''), route.name);
    const admin = await names(await gw.login());
    assert.equal(admin[0]!.name, 'home');
    for (const name of ['devices', 'scan', 'credentials', 'diagnostics', 'example']) assert.ok(admin.some((r) => r.name === name), name);
  } finally {
    await gw.cleanup();
  }
});

test("a disabled plugin's routes vanish from the route list", async () => {
  const gw = await startTestGateway({ plugins: ['route-permissions'] });
  try {
    const routes = (await (await gw.request('GET', '/api/routes', { token: await gw.login() })).json()) as Array<{ name: string }>;
    assert.deepEqual(routes.map((r) => r.name), ['home']);
  } finally {
    await gw.cleanup();
  }
});
