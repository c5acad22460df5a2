/**
 * The console's HTTP surface without a browser: the shell and its assets load without a token, deep
 * links get the shell, the API, the hub and the docs keep their own answers, assets are cached by
 * content hash, a missing bundle (or in a checkout one older than the client sources) is built at start
 * (or refused with a clear error when told not to).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { buildBundle } from '../../../plugins/web-console/console-bundle.js';

const PLUGINS = ['rest-api', 'route-permissions', 'scan-hub', 'web-console'];
let emptyDir: string;
let gw: TestGateway;

before(async () => {
  emptyDir = await mkdtemp(join(tmpdir(), 'amtgw-console-empty-'));
  gw = await startTestGateway({ plugins: PLUGINS, overrides: { plugins: { 'web-console': { options: { bundleDir: emptyDir } } } } });
});

after(async () => {
  await gw?.cleanup();
  await rm(emptyDir, { recursive: true, force: true });
});

const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const get = (path: string, headers: Record<string, string> = html, method = 'GET') => fetch(gw.url + path, { method, headers });
const scriptOf = (index: string) => /<script type="module" src="(\/console-assets\/main-[A-Z0-9]+\.js)">/.exec(index)?.[1];

test('the shell loads at / without a token, with a CSP and no address outside this gateway', async () => {
  const res = await get('/');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'.*script-src 'self'/);
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  const body = await res.text();
  assert.ok(scriptOf(body), 'the hashed script is linked');
  assert.doesNotMatch(body, /https?:\/\//, 'no CDN or other host');
});

test('deep links of any page path get the same shell; JSON callers of those paths do not', async () => {
  const index = await (await get('/')).text();
  for (const path of ['/devices', '/devices/4c4c4544-0000-1000-8000-000000000001', '/scan', '/some-plugin/page']) {
    const res = await get(path);
    assert.equal(res.status, 200, path);
    assert.equal(await res.text(), index, path);
  }
  assert.equal((await get('/devices', { accept: 'application/json' })).status, 404);
  assert.equal((await get('/favicon.ico', { accept: '*/*' })).status, 404, 'a file name is no page path');
  assert.equal((await get('/', html, 'POST')).status, 404);
  const head = await get('/credentials', html, 'HEAD');
  assert.equal(head.status, 200);
});

test('GET / with Accept */* (curl, health checkers, fetch) or no Accept gets the shell, as history-API fallbacks do', async () => {
  const index = await (await get('/')).text();
  for (const headers of [{ accept: '*/*' }, { accept: 'application/json, */*;q=0.5' }, {}]) {
    const res = await fetch(gw.url + '/', { headers: { accept: '', ...headers } });
    assert.equal(res.status, 200, JSON.stringify(headers));
    assert.equal(await res.text(), index);
  }
  assert.equal((await get('/api/devices', { accept: '*/*' })).status, 401, 'the API keeps its answer');
});

test('the API, the hub and the docs keep their answers for browsers too', async () => {
  const api = await get('/api/devices');
  assert.equal(api.status, 401, 'the API still needs the token');
  assert.match(api.headers.get('content-type') ?? '', /problem\+json/);
  const unknown = await get('/api/no-such-route');
  assert.equal(unknown.status, 404);
  assert.match(unknown.headers.get('content-type') ?? '', /problem\+json/);
  const hub = await get('/scanHub');
  assert.doesNotMatch(hub.headers.get('content-type') ?? '', /text\/html/);
  const docs = await get('/swagger');
  assert.equal(docs.status, 200);
  assert.match(await docs.text(), /swagger-ui/);
});

test('assets are served by content-hashed name, cached for a year; unknown assets are 404', async () => {
  const script = scriptOf(await (await get('/')).text())!;
  const res = await get(script, { accept: '*/*' });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.ok((await res.arrayBuffer()).byteLength > 10_000);
  assert.equal((await get('/console-assets/main-NOPE.js', { accept: '*/*' })).status, 404);
  assert.equal((await get('/console-assets/../package.json', { accept: '*/*' })).status, 404);
});

test("the console's Users page is in the route list only for users:manage", async () => {
  const titles = async (token: string) => ((await (await gw.request('GET', '/api/routes', { token })).json()) as Array<{ meta: { title: string } }>).map((r) => r.meta.title);
  assert.ok((await titles(await gw.login())).includes('Users'));
  assert.deepEqual(await titles(await gw.userWith(['devices:read'])), ['Home', 'Devices']);
});

test('a bundle built by build:web is served as built', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-console-built-'));
  try {
    const built = await buildBundle(dir, true);
    const other = await startTestGateway({ plugins: ['web-console'], overrides: { plugins: { 'web-console': { options: { bundleDir: dir, buildIfMissing: false } } } } });
    try {
      const index = await (await fetch(other.url + '/', { headers: html })).text();
      assert.equal(index, built.index.toString());
    } finally {
      await other.cleanup();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('in a checkout, a bundle older than the client sources is rebuilt at start, or served with buildIfMissing off', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-console-stale-'));
  try {
    const stale = '<!doctype html><title>stale console</title>';
    await writeFile(join(dir, 'index.html'), stale);
    await utimes(join(dir, 'index.html'), new Date(0), new Date(0));
    for (const buildIfMissing of [true, false]) {
      const other = await startTestGateway({ plugins: ['web-console'], overrides: { plugins: { 'web-console': { options: { bundleDir: dir, buildIfMissing } } } } });
      try {
        const index = await (await fetch(other.url + '/', { headers: html })).text();
        if (buildIfMissing) {
          assert.notEqual(index, stale);
          assert.ok(scriptOf(index), 'the rebuilt shell links its script');
        } else {
          assert.equal(index, stale);
        }
      } finally {
        await other.cleanup();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('with no bundle and buildIfMissing off, start-up stops with a message naming the fix', async () => {
  await assert.rejects(
    startTestGateway({ plugins: ['web-console'], overrides: { plugins: { 'web-console': { options: { bundleDir: emptyDir, buildIfMissing: false } } } } }),
    /no bundle in .*run npm run build:web/,
  );
});
