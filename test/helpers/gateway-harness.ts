/**
 * Starts a real gateway for a test: a fresh LevelDB in a temp directory, a listener on port 0,
 * the admin password known, the plugins the test names. Stop it with `stop()` (and `cleanup()`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig, mergeConfig } from '../../core/config/load-config.js';
import { startGateway, type Gateway } from '../../core/kernel.js';
import { builtInPluginNames } from '../../core/plugins/plugin-loader.js';
import { responseContract } from './response-contract.js';

export const ADMIN_PASSWORD = 'admin-test-password-1';

export interface TestGatewayOptions {
  /** Plugins to enable (built-in by name); all others are disabled. Default: none. */
  plugins?: string[];
  /** Extra configuration merged last (e.g. `{ plugins: { 'soap-mps': { enable: true, options: {...} } } }`). */
  overrides?: Record<string, unknown>;
  /** Reuse a data directory (restart tests). Default: a new temp directory. */
  dataDir?: string;
  /** Master key (base64); default: a fixed random key per harness. */
  masterKey?: string;
  env?: NodeJS.ProcessEnv;
  /** Collect log lines instead of printing them. */
  logs?: string[];
  /** Start on a store whose log LevelDB would partly drop (`--accept-store-damage`). */
  acceptStoreDamage?: boolean;
}

export interface TestGateway {
  gateway: Gateway;
  url: string;
  dataDir: string;
  masterKey: string;
  /** Signs in and returns the bearer token. */
  login(username?: string, password?: string): Promise<string>;
  /**
   * fetch against the gateway with a JSON body and a bearer token. The answer is checked against the
   * route's documented response (response-contract.ts): one that breaks it rejects.
   */
  request(method: string, path: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** Creates a user with the given permissions and returns a token for it. */
  userWith(permissions: string[], username?: string): Promise<string>;
  stop(): Promise<void>;
  /** Stops (if running) and removes the data directory. */
  cleanup(): Promise<void>;
}


export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'amtgw-test-')));
  const masterKey = options.masterKey ?? randomBytes(32).toString('base64');
  const enabled = new Set(options.plugins ?? []);
  const plugins: Record<string, unknown> = {};
  for (const name of builtInPluginNames()) plugins[name] = { enable: enabled.has(name) };
  for (const name of enabled) plugins[name] ??= { enable: true };
  const base = { server: { host: '127.0.0.1', port: 0, shutdownTimeoutMs: 2000 }, dataDir, log: { level: options.logs ? 'debug' : 'warn' }, plugins };
  const env = { AMTGW_ADMIN_PASSWORD: ADMIN_PASSWORD, AMTGW_MASTER_KEY: masterKey, ...options.env };
  const config = loadConfig({ overrides: mergeConfig(base, options.overrides ?? {}), env });
  const gateway = await startGateway(config, { env, acceptStoreDamage: options.acceptStoreDamage ?? false, checkSchemas: true, ...(options.logs ? { writeLog: (line: string) => options.logs!.push(line) } : {}) });
  let stopped = false;
  const contract = responseContract(gateway.url);
  const harness: TestGateway = {
    gateway,
    url: gateway.url,
    dataDir,
    masterKey,
    async login(username = 'admin', password = ADMIN_PASSWORD) {
      const res = await harness.request('POST', '/api/auth/login', { body: { username, password } });
      if (res.status !== 200) throw new Error(`login as ${username} failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { token: string }).token;
    },
    async request(method, path, { token, body, headers = {} } = {}) {
      const res = await fetch(gateway.url + path, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      await contract.check(method, path, res.clone());
      return res;
    },
    async userWith(permissions, username = `user-${randomBytes(4).toString('hex')}`) {
      const admin = await harness.login();
      const res = await harness.request('POST', '/api/users', { token: admin, body: { username, password: 'user-password-1', permissions } });
      if (res.status !== 201) throw new Error(`creating ${username} failed: ${res.status} ${await res.text()}`);
      return harness.login(username, 'user-password-1');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await gateway.stop();
    },
    async cleanup() {
      await harness.stop();
      if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}
