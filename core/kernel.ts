import { join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, RequestListener } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GatewayConfig } from './config/gateway-config.js';
import { ConfigError } from './config/load-config.js';
import type { PluginDefinition, PluginManifest, SiteSettings, UpgradeHandler } from './plugin-api.js';
import { createLogger, type Logger } from './log/logger.js';
import { openStore, type GatewayStore } from './store/level-store.js';
import { establishMasterKey } from './secrets/key-check.js';
import { masterKeyFile } from './secrets/master-key.js';
import { createSealer } from './secrets/sealer.js';
import { createWorkerPool, type WorkerPool } from './pool/worker-pool.js';
import { createEventBus } from './events/event-bus.js';
import { createUserStore } from './auth/user-store.js';
import { createTokenService } from './auth/token-service.js';
import { createAuthService, type AuthService } from './auth/auth-service.js';
import { createLoginThrottle } from './auth/login-throttle.js';
import { bootstrapAdmin } from './auth/bootstrap-admin.js';
import { CORE_PERMISSIONS } from './auth/core-permissions.js';
import { RouteTable } from './http/route-table.js';
import { SchemaRegistry } from './openapi/schema-registry.js';
import { buildOpenApiDocument } from './openapi/openapi-builder.js';
import { createApp } from './http/app.js';
import { startListener, type Listener } from './http/listener.js';
import { createAjv } from './validation/validator.js';
import { builtInPluginNames, loadPlugin } from './plugins/plugin-loader.js';
import { orderPlugins } from './plugins/plugin-order.js';
import { createPluginContext, type KernelParts } from './plugins/plugin-context.js';
import { PluginError } from './plugins/plugin-errors.js';
import { collectPermissions } from './plugins/plugin-permissions.js';
import { CORE_PLUGIN, corePlugin } from './core-plugin.js';
import { PACKAGE_VERSION } from './assets/package-root.js';
import { ReadinessRegistry } from './health/readiness.js';
import { startAdminSocket, type AdminSocket } from './backup/admin-socket.js';

const KERNEL = CORE_PLUGIN;
const TOKEN_SWEEP_MS = 10 * 60_000;

/** A running gateway. */
export interface Gateway {
  readonly config: GatewayConfig;
  /** Base URL of the main listener, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly logger: Logger;
  /** Names of the registered plugins, in registration order. */
  readonly plugins: string[];
  /** Every listener with its owner: the main one (`core`) first, then those plugins opened. */
  readonly listeners: ReadonlyArray<{ plugin: string; url: string }>;
  /** Every JSON route, with the plugin that registered it (`core` for the kernel's own). */
  readonly routes: Array<{ plugin: string; method: string; path: string; permission: string }>;
  /** Set when the admin password was generated at this start. */
  readonly generatedAdminPassword: string | undefined;
  /** Graceful stop: stop accepting, drain, plugin teardown in reverse order, close pool and store. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Working directory for relative paths (plugins by path, the data directory). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Log sink; default stdout. */
  writeLog?: (line: string) => void;
  /** Start even when LevelDB would drop unreadable records of its log (`--accept-store-damage`); logged loudly. */
  acceptStoreDamage?: boolean;
}

interface LoadedPlugin {
  name: string;
  dependencies: string[];
  optionalDependencies: string[];
  def: PluginDefinition<Record<string, unknown>>;
  options: Record<string, unknown>;
}

/** Phase `load`: imports every enabled plugin and checks it against the contract. */
async function loadEnabledPlugins(config: GatewayConfig, cwd: string, logger: Logger): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  for (const [name, setting] of Object.entries(config.plugins)) {
    if (!setting.enable) continue;
    if (name === KERNEL) throw new PluginError('GW_ERR_PLUGIN_NAME', `no plugin may be called '${KERNEL}': the kernel goes by that name`);
    const def = await loadPlugin(name, setting, cwd);
    loaded.push({ name, dependencies: def.dependencies ?? [], optionalDependencies: def.optionalDependencies ?? [], def, options: structuredClone(setting.options ?? {}) });
  }
  return withImpliedDependencies(loaded, config, cwd, logger);
}

/**
 * A built-in plugin that an enabled built-in plugin depends on is enabled with it (as Egg does), so
 * a site whose configuration predates a split (`rest-api` before `devices`) keeps starting. Logged,
 * since it overrides an `enable: false`. A third-party plugin's missing dependency stays an error:
 * its site says what it enables.
 */
async function withImpliedDependencies(loaded: LoadedPlugin[], config: GatewayConfig, cwd: string, logger: Logger): Promise<LoadedPlugin[]> {
  const builtIn = new Set(builtInPluginNames());
  for (let i = 0; i < loaded.length; i++) {
    const requiring = config.plugins[loaded[i]!.name];
    if (!builtIn.has(loaded[i]!.name) || requiring?.path || requiring?.package) continue;
    for (const dep of loaded[i]!.dependencies) {
      if (loaded.some((p) => p.name === dep) || !builtIn.has(dep) || config.plugins[dep]?.path || config.plugins[dep]?.package) continue;
      const setting = { ...config.plugins[dep], enable: true };
      const def = await loadPlugin(dep, setting, cwd);
      logger.info('plugin enabled implicitly: a plugin enabled depends on it', { plugin: dep, requiredBy: loaded[i]!.name });
      loaded.push({ name: dep, dependencies: def.dependencies ?? [], optionalDependencies: def.optionalDependencies ?? [], def, options: structuredClone(setting.options ?? {}) });
    }
  }
  return loaded;
}

function validateOptions(plugin: LoadedPlugin, ajv: ReturnType<typeof createAjv>): void {
  if (!plugin.def.configSchema) return;
  const validate = ajv.compile(plugin.def.configSchema);
  if (!validate(plugin.options)) {
    const problems = (validate.errors ?? []).map((e) => {
      const extra = e.keyword === 'additionalProperties' ? `.${String((e.params as { additionalProperty: string }).additionalProperty)}` : '';
      return `plugins.${plugin.name}.options${e.instancePath.replace(/\//g, '.')}${extra} ${e.keyword === 'additionalProperties' ? 'is not an allowed property' : e.message}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
}

function closure(plugins: LoadedPlugin[]): (name: string) => Set<string> {
  const byName = new Map(plugins.map((p) => [p.name, p]));
  return (name) => {
    const seen = new Set<string>();
    const walk = (n: string) => {
      const plugin = byName.get(n);
      for (const dep of [...(plugin?.dependencies ?? []), ...(plugin?.optionalDependencies ?? [])]) {
        if (seen.has(dep)) continue;
        seen.add(dep);
        walk(dep);
      }
    };
    walk(name);
    return seen;
  };
}

/** Reads the CA bundle of `amt.caFile` once; an unreadable file stops start-up naming it. */
function readDeviceTls(config: GatewayConfig, cwd: string): SiteSettings['deviceTls'] {
  const { tlsTrust, caFile } = config.amt;
  const legacy = config.amt.legacyTls === true ? { legacyTls: true } : {};
  if (!caFile) return { mode: tlsTrust, ...legacy };
  try {
    return { mode: tlsTrust, caPem: readFileSync(resolve(cwd, caFile), 'utf8'), ...legacy };
  } catch (err) {
    throw new ConfigError(`invalid configuration: amt.caFile ${caFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

function bearerToken(authorization: string): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}

/** The kernel's readiness checks: the store takes writes, the pool takes tasks, each plugin has started and is not stopping. */
function kernelReadiness(store: GatewayStore, pool: WorkerPool, plugins: string[], serving: () => boolean): ReadinessRegistry {
  const readiness = new ReadinessRegistry();
  readiness.add(KERNEL, 'store', () => {
    const status = store.status();
    return status.state === 'ok' ? { ready: true } : { ready: false, reason: `the store is ${status.state}: ${status.reason}` };
  });
  readiness.add(KERNEL, 'workers', () => pool.status());
  for (const name of plugins) readiness.add(KERNEL, `plugin:${name}`, () => (serving() ? { ready: true } : { ready: false, reason: 'not started, or stopping' }));
  return readiness;
}

/** Phase `register`: the kernel's own routes, then each plugin in dependency order, each through its context. */
async function registerPlugins(plugins: LoadedPlugin[], parts: KernelParts, core: PluginDefinition<Record<string, unknown>>, registered: PluginManifest[]): Promise<void> {
  await core.register(createPluginContext(core, {}, parts));
  // One ajv for every plugin's options: an instance with its formats costs tens of milliseconds.
  const optionsAjv = createAjv({ useDefaults: true });
  for (const plugin of plugins) {
    validateOptions(plugin, optionsAjv);
    const { def } = plugin;
    registered.push({ name: def.name, version: def.version, dependencies: plugin.dependencies, optionalDependencies: plugin.optionalDependencies, permissions: def.permissions ?? [], routes: def.routes ?? [] });
    try {
      await def.register(createPluginContext(def, plugin.options, parts));
    } catch (err) {
      if (err instanceof PluginError || err instanceof ConfigError) throw err;
      throw new PluginError('GW_ERR_PLUGIN_REGISTER', `plugin '${def.name}' failed to register: ${(err as Error).message}`, { cause: err });
    }
    parts.logger.debug('plugin registered', { plugin: def.name, version: def.version });
  }
  parts.routes.checkPermissions(parts.auth.allPermissions());
}

/** Phase `ready`: one router with validation and authorisation for every route, CORS from what the plugins registered, the OpenAPI document. */
function buildHttpApp(config: GatewayConfig, parts: KernelParts, auth: AuthService) {
  const { routes, schemas, tags } = parts;
  const ajvBody = createAjv();
  const ajvQuery = createAjv({ coerceTypes: true, useDefaults: true });
  schemas.installInto(ajvBody);
  schemas.installInto(ajvQuery);
  const router = routes.buildRouter(ajvBody, ajvQuery, async (ctx) => {
    const token = bearerToken(ctx.get('Authorization'));
    return token ? auth.verifyToken(token) : null;
  });
  let openApi: Record<string, unknown> | undefined;
  return createApp({
    logger: parts.logger,
    router,
    mounts: parts.mounts,
    cors: {
      origins: config.cors.origins,
      maxAgeSeconds: config.cors.maxAgeSeconds ?? 600,
      paths: [...parts.cors.paths],
      allowHeaders: parts.cors.allowHeaders,
      exposeHeaders: [...routes.documentedHeaders(), ...parts.cors.exposeHeaders],
    },
    bodyLimitBytes: config.server.bodyLimitBytes,
    requestCompleted: (event) => parts.events.publish('HttpRequestCompleted', event),
    openApiDocument: () =>
      (openApi ??= buildOpenApiDocument({
        title: 'amt-gateway',
        version: PACKAGE_VERSION,
        description: 'Discovers, tracks and manages Intel AMT devices. Every route but login and health needs a bearer token from POST /api/auth/login.',
        routes: routes.list(),
        components: schemas.components(),
        tags: [...tags].map(([name, description]) => ({ name, description })),
      })),
  });
}

/** Phase `listen`: the main listener, with the upgrade paths plugins claimed. */
async function listenMain(config: GatewayConfig, handler: RequestListener, upgrades: KernelParts['upgrades']): Promise<Listener> {
  const main = await startListener(handler, config.server.host, config.server.port, config.server.tls);
  main.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const claimed = upgrades.get(path);
    if (claimed) return claimed.handler(req, socket, head);
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  return main;
}

/**
 * Starts the gateway: store, sealing, users, worker pool, the enabled plugins in dependency
 * order, the HTTP listener. Anything that fails undoes what was started and rethrows.
 */
export async function startGateway(config: GatewayConfig, options: StartOptions = {}): Promise<Gateway> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const logger = createLogger({ level: config.log.level, ...(options.writeLog ? { write: options.writeLog } : {}) });
  const dataDir = resolve(cwd, config.dataDir);
  const plugins = orderPlugins(await loadEnabledPlugins(config, cwd, logger));
  // Frozen: plugins receive this very list from auth.allPermissions().
  const allPermissionNames = Object.freeze(collectPermissions([{ name: KERNEL, permissions: CORE_PERMISSIONS }, ...plugins.map((p) => ({ name: p.name, permissions: p.def.permissions ?? [] }))])) as string[];
  const permissionNames = () => allPermissionNames;

  const store: GatewayStore = await openStore(dataDir, { acceptDamage: options.acceptStoreDamage ?? false, logger });
  let pool: WorkerPool | undefined;
  let adminSocket: AdminSocket | undefined;
  const listeners: Listener[] = [];
  const listenerOwners: Array<{ plugin: string; url: string }> = [];
  const closeHooks: KernelParts['closeHooks'] = [];
  const stoppingHooks: KernelParts['stoppingHooks'] = [];
  const runHooks = async (hooks: KernelParts['closeHooks'], what: string) => {
    for (const { plugin, hook } of [...hooks].reverse()) {
      try {
        await hook();
      } catch (err) {
        logger.error(`plugin ${what} failed`, { plugin, error: (err as Error).message });
      }
    }
  };
  let serving = false;
  const shutdown = async () => {
    serving = false;
    await runHooks(stoppingHooks, 'stopping hook');
    await Promise.allSettled(listeners.map((l) => l.close(config.server.shutdownTimeoutMs)));
    await runHooks(closeHooks, 'teardown');
    await pool?.close();
    await adminSocket?.close();
    await store.close();
  };

  try {
    const coreStore = store.namespace(KERNEL);
    const masterKey = await establishMasterKey(store, coreStore, masterKeyFile(config, cwd), env, dataDir);
    if (masterKey.recovered) logger.warn('finished a key rotation that was cut off: the key file now holds the new key');
    const secrets = createSealer(masterKey.key);
    const auth = createAuthService(await createUserStore(coreStore.namespace('users')), createTokenService(coreStore.namespace('tokens'), config.auth.tokenTtlSeconds), permissionNames);
    await auth.tokens.sweep();
    const sweeper = setInterval(() => void auth.tokens.sweep().catch((err: Error) => logger.warn('token sweep failed', { error: err.message })), TOKEN_SWEEP_MS);
    sweeper.unref();
    closeHooks.push({ plugin: KERNEL, hook: () => clearInterval(sweeper) });
    const bootstrap = await bootstrapAdmin(auth.users, resolve(cwd, config.auth.adminPasswordFile ?? join(dataDir, 'admin-password')), logger, env);
    pool = createWorkerPool(config.workers);
    adminSocket = await startAdminSocket(dataDir, store, PACKAGE_VERSION, logger);

    let mainUrl = '';
    const site: SiteSettings = { baseUrl: () => mainUrl, host: config.server.host, dataDir, amt: config.amt, deviceTls: readDeviceTls(config, cwd) };
    const routes = new RouteTable();
    const schemas = new SchemaRegistry();
    const upgrades = new Map<string, { plugin: string; handler: UpgradeHandler }>();
    const readyHooks: KernelParts['readyHooks'] = [];
    const readiness = kernelReadiness(store, pool, plugins.map((p) => p.name), () => serving);
    const registered: PluginManifest[] = [];
    const parts: KernelParts = {
      site,
      store,
      events: createEventBus(logger),
      pool,
      logger,
      auth,
      secrets,
      routes,
      schemas,
      tags: new Map(),
      upgrades,
      mounts: [],
      cors: { paths: new Set(), allowHeaders: [], exposeHeaders: [] },
      services: new Map(),
      manifests: () => [...registered],
      dependencyClosure: closure(plugins),
      async listen(plugin, handler, host, port) {
        const listener = await startListener(handler, host, port, config.server.tls);
        listeners.push(listener);
        listenerOwners.push({ plugin, url: listener.url });
        logger.info('plugin listener started', { plugin, url: listener.url });
        return listener;
      },
      readiness,
      readyHooks,
      stoppingHooks,
      closeHooks,
    };
    const core = corePlugin({ version: PACKAGE_VERSION, auth, throttle: createLoginThrottle(config.auth.login), plugins: () => registered.map((p) => p.name), store: () => store.status(), readiness });
    await registerPlugins(plugins, parts, core, registered);
    const app = buildHttpApp(config, parts, auth);

    const main = await listenMain(config, app.callback(), upgrades);
    listeners.unshift(main);
    listenerOwners.unshift({ plugin: KERNEL, url: main.url });
    mainUrl = main.url;
    for (const hook of readyHooks) await hook();
    serving = true;
    logger.info('gateway serving', { url: main.url, plugins: registered.map((p) => p.name) });

    let stopping: Promise<void> | undefined;
    return {
      config,
      url: main.url,
      logger,
      plugins: registered.map((p) => p.name),
      listeners: listenerOwners,
      routes: routes.list().map((r) => ({ plugin: r.plugin, method: r.method, path: r.path, permission: r.spec.permission })),
      generatedAdminPassword: bootstrap.generatedPassword,
      stop: () => (stopping ??= shutdown().then(() => logger.info('gateway stopped'))),
    };
  } catch (err) {
    await shutdown().catch(() => undefined);
    throw err;
  }
}
