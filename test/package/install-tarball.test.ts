/**
 * The plugin story end to end, as a site and a plugin author live it: `npm pack` the gateway,
 * install the tarball into a new project, compile a plugin package written in TypeScript
 * (test/fixtures/plugin-package) with tsc against the installed amt-gateway types, install it
 * beside the gateway, start the installed bin and use the plugin over HTTP. Slow (pack, install):
 * every step is bounded in time; the registry is only asked for what the npm cache lacks.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PLUGIN_SOURCE = fileURLToPath(new URL('../fixtures/plugin-package/', import.meta.url));
const TYPED_PLUGIN = fileURLToPath(new URL('../fixtures/plugins/typed-plugin/index.ts', import.meta.url));
const ADMIN_PASSWORD = 'admin-package-password-1';
const STEP_TIMEOUT_MS = 240_000;
const run = promisify(execFile);

const installedVersion = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

async function npm(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, timeout: STEP_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

let work: string;
let site: string;
let gateway: ChildProcess | undefined;
let exited: Promise<number | null>;
let baseUrl: string;
let output = '';

async function startInstalledGateway(): Promise<string> {
  const dataDir = join(site, 'data');
  await writeFile(
    join(site, 'site.json'),
    JSON.stringify({
      dataDir,
      server: { host: '127.0.0.1', port: 0 },
      plugins: {
        devices: { enable: true, options: { allowedNetworks: ['127.77.0.0/16'], ports: { rmcp: 0 } } },
        'route-permissions': { enable: true },
        'scan-hub': { enable: false },
        'remote-monitor': { enable: false },
        'power-mgmt': { enable: false },
        'soap-mps': { enable: false },
        'site-notes': { enable: true, package: 'amtgw-plugin-site-notes', options: { title: 'Lab notes' } },
      },
    }),
  );
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, AMTGW_ADMIN_PASSWORD: ADMIN_PASSWORD };
  gateway = spawn(join(site, 'node_modules/.bin/amt-gateway'), ['--config', 'site.json'], { cwd: site, env, stdio: ['ignore', 'pipe', 'pipe'] });
  exited = new Promise((resolve) => gateway!.once('exit', (code) => resolve(code)));
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the installed gateway did not serve within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"msg":"gateway serving","url":"([^"]+)"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    gateway!.stdout!.on('data', onData);
    gateway!.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the installed gateway exited with ${code}:\n${output}`));
    });
  });
}

before(
  async () => {
    work = await mkdtemp(join(tmpdir(), 'amtgw-package-'));
    await npm(ROOT, ['pack', '--pack-destination', work]);
    const tarball = join(work, (await readdir(work)).find((f) => f.endsWith('.tgz'))!);

    site = join(work, 'site');
    await cp(PLUGIN_SOURCE, join(site, 'site-notes'), { recursive: true, filter: (src) => !src.includes('node_modules') && !src.includes(`${PLUGIN_SOURCE}dist`) });
    await writeFile(
      join(site, 'package.json'),
      JSON.stringify({
        name: 'amtgw-test-site',
        private: true,
        type: 'module',
        dependencies: { 'amt-gateway': `file:${tarball}`, 'amtgw-plugin-site-notes': 'file:./site-notes' },
        devDependencies: { typescript: installedVersion('typescript'), '@types/node': installedVersion('@types/node') },
      }),
    );
    await npm(site, ['install', '--prefer-offline']);
    // The plugin author's build: tsc against the types the installed package ships.
    await run(process.execPath, [join(site, 'node_modules/typescript/bin/tsc'), '-p', join(site, 'site-notes')], { cwd: site, timeout: STEP_TIMEOUT_MS }).catch((err: { stdout?: string }) => {
      throw new Error(`the plugin package does not compile against the installed amt-gateway:\n${err.stdout ?? String(err)}`);
    });
    baseUrl = await startInstalledGateway();
  },
  { timeout: 4 * STEP_TIMEOUT_MS },
);

after(async () => {
  if (gateway && gateway.exitCode === null) {
    gateway.kill('SIGKILL');
    await exited;
  }
  if (work) await rm(work, { recursive: true, force: true });
});

async function call(method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; type: string; json: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function login(username: string, password: string): Promise<string> {
  const res = await call('POST', '/api/auth/login', undefined, { username, password });
  assert.equal(res.status, 200, `login as ${username}`);
  return res.json.token as string;
}

test('the tarball ships compiled code, types and assets only, and installs without tsx', async () => {
  const pkg = join(site, 'node_modules/amt-gateway');
  assert.ok(existsSync(join(pkg, 'dist/core/main.js')));
  assert.ok(existsSync(join(pkg, 'dist/core/plugin-api.d.ts')));
  assert.ok(existsSync(join(pkg, 'schemas/config.schema.json')) && existsSync(join(pkg, 'config/default.json')));
  assert.deepEqual((await readdir(pkg)).filter((f) => ['core', 'plugins', 'workers', 'test'].includes(f)), [], 'no TypeScript source tree');
  assert.equal(existsSync(join(site, 'node_modules/tsx')), false, 'tsx is not a runtime dependency');
});

test("a plugin written against amt-gateway/kernel and a plugin's entry point (amt-gateway/devices) compiles against the installed types, TypeBox inference included", async () => {
  const dir = join(site, 'typed-plugin');
  await cp(TYPED_PLUGIN, join(dir, 'src/index.ts'));
  await cp(join(PLUGIN_SOURCE, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'typed-plugin', private: true, type: 'module' }));
  // Its @ts-expect-error lines fail the build if the installed types let a wrong access through.
  const built = await run(process.execPath, [join(site, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: site, timeout: STEP_TIMEOUT_MS }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? String(err), failed: true }));
  assert.ok(!('failed' in built), `the typed plugin does not compile against the installed amt-gateway:\n${built.stdout}`);
  assert.ok(existsSync(join(dir, 'dist/index.js')));
});

test('the bin runs the compiled gateway as one node process', async () => {
  // The spawned process itself is node running the compiled entry: no npm, shell or tsx in between.
  assert.match(await readlink(`/proc/${gateway!.pid}/exe`), /\/node[^/]*$/);
  const cmdline = (await readFile(`/proc/${gateway!.pid}/cmdline`, 'utf8')).split('\0');
  assert.ok(cmdline.some((arg) => arg.endsWith('node_modules/amt-gateway/dist/core/main.js') || arg.endsWith('node_modules/.bin/amt-gateway')), cmdline.join(' '));
  assert.ok(!cmdline.some((arg) => arg.includes('tsx')), cmdline.join(' '));
  const health = await call('GET', '/api/health');
  assert.equal(health.status, 200);
  assert.ok((health.json.plugins as string[]).includes('site-notes'), JSON.stringify(health.json));
});

test('the operator console is served from the prebuilt bundle the tarball ships; its build tools are not installed', async () => {
  const pkg = join(site, 'node_modules/amt-gateway');
  assert.ok(existsSync(join(pkg, 'dist/web-console/index.html')), 'prepack built the console into dist/web-console');
  for (const tool of ['esbuild', 'preact', '@microsoft/signalr']) assert.equal(existsSync(join(site, 'node_modules', tool)), false, `${tool} is bundled, not a runtime dependency`);
  assert.ok(((await call('GET', '/api/health')).json.plugins as string[]).includes('web-console'), 'enabled by default');
  const shell = await fetch(`${baseUrl}/devices`, { headers: { accept: 'text/html' }, signal: AbortSignal.timeout(10_000) });
  assert.equal(shell.status, 200);
  assert.match(shell.headers.get('content-type') ?? '', /^text\/html/);
  const script = /<script type="module" src="(\/console-assets\/[^"]+\.js)">/.exec(await shell.text())?.[1];
  assert.ok(script, 'the shell links its script');
  const asset = await fetch(`${baseUrl}${script}`, { signal: AbortSignal.timeout(10_000) });
  assert.equal(asset.status, 200);
  assert.match(asset.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.equal((await asset.arrayBuffer()).byteLength, (await readFile(join(pkg, 'dist/web-console', script.split('/').pop()!))).length);
  assert.doesNotMatch(output, /web console built in memory/);
});

test("the plugin's route needs its permission: 401 without a token, 403 without notes:read, 200 with it", async () => {
  const admin = await login('admin', ADMIN_PASSWORD);
  assert.equal((await call('GET', '/api/site-notes/summary')).status, 401);
  for (const [username, permissions] of [['viewer', ['devices:read']], ['reader', ['notes:read']]] as const) {
    assert.equal((await call('POST', '/api/users', admin, { username, password: `${username}-password-1`, permissions })).status, 201);
  }
  assert.equal((await call('GET', '/api/site-notes/summary', await login('viewer', 'viewer-password-1'))).status, 403);
  const summary = await call('GET', '/api/site-notes/summary', await login('reader', 'reader-password-1'));
  assert.equal(summary.status, 200);
  assert.deepEqual(summary.json, { title: 'Lab notes', devices: 0, scansCompleted: 0, devicesFound: 0 });
});

test("the plugin's typed ScanCompleted subscription sees a scan rest-api ran", async () => {
  const admin = await login('admin', ADMIN_PASSWORD);
  const started = await call('POST', '/api/scan/start', admin, { range: '127.77.0.1-4' });
  assert.equal(started.status, 202, JSON.stringify(started.json));
  const deadline = Date.now() + 30_000;
  let summary = await call('GET', '/api/site-notes/summary', admin);
  while (summary.json.scansCompleted === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    summary = await call('GET', '/api/site-notes/summary', admin);
  }
  assert.equal(summary.json.scansCompleted, 1);
  assert.equal(summary.json.devicesFound, 0);
});

test('an error of the plugin\'s own class comes back as its problem+json status, not 400', async () => {
  const admin = await login('admin', ADMIN_PASSWORD);
  const res = await call('GET', '/api/site-notes/devices/no-such-device', admin);
  assert.equal(res.status, 404, JSON.stringify(res.json));
  assert.match(res.type, /^application\/problem\+json/);
  assert.equal(res.json.status, 404);
  assert.match(String(res.json.detail), /no device no-such-device/);
});

test("the plugin's compiled worker task runs in the pool", async () => {
  const admin = await login('admin', ADMIN_PASSWORD);
  const res = await call('GET', '/api/site-notes/word-count?text=three%20little%20words', admin);
  assert.equal(res.status, 200, JSON.stringify(res.json));
  assert.deepEqual(res.json, { words: 3 });
});

test("the plugin's front-end route is in GET /api/routes and its routes in the OpenAPI document", async () => {
  const reader = await login('reader', 'reader-password-1');
  const routes = await call('GET', '/api/routes', reader);
  assert.equal(routes.status, 200);
  assert.match(JSON.stringify(routes.json), /"path":"\/site-notes"/);
  const openapi = await call('GET', '/swagger/openapi.json');
  assert.equal(openapi.status, 200);
  const paths = openapi.json.paths as Record<string, Record<string, { summary?: string }>>;
  assert.equal(paths['/api/site-notes/devices/{id}']?.get?.summary, "A stored device's address and firmware");
  assert.ok(paths['/api/site-notes/summary']?.get);
});

test('SIGTERM to the bin process stops the gateway with exit code 0', async () => {
  gateway!.kill('SIGTERM');
  assert.equal(await exited, 0);
  assert.match(output, /gateway stopped/);
});
