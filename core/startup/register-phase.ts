/**
 * Start-up phase `register`: the kernel's own routes (the `core` plugin), then each plugin in
 * dependency order, each through a context scoped to it.
 */
import { randomUUID } from 'node:crypto';
import type { GatewayConfig } from '../config/gateway-config.js';
import { ConfigError, isConfigError } from '../config/load-config.js';
import type { Logger } from '../log/logger.js';
import type { PluginManifest, SiteSettings, UpgradeHandler } from '../plugin-api.js';
import { createEventBus } from '../events/event-bus.js';
import { createSignInService } from '../auth/sign-in.js';
import { kernelPluginAuth } from '../auth/plugin-auth.js';
import { RouteTable } from '../http/route-table.js';
import { startListener } from '../http/listener.js';
import { SchemaRegistry } from '../openapi/schema-registry.js';
import { startupValidator } from '../validation/validator.js';
import { startValidator } from '../validation/start-validators.js';
import { createPluginContext, type KernelParts } from '../plugins/plugin-context.js';
import { isPluginError, PluginError } from '../plugins/plugin-errors.js';
import { ReadinessRegistry } from '../health/readiness.js';
import { CORE_PLUGIN, corePlugin } from '../core-plugin.js';
import { PACKAGE_VERSION } from '../assets/package-root.js';
import type { Infrastructure } from './infrastructure.js';
import { instanceName, singleInstance, type RunningCluster } from '../cluster/single-instance.js';
import type { Lifecycle } from './lifecycle.js';
import type { LoadedPlugin, OrderedPlugins } from './load-phase.js';

/** What registration produced: the parts the HTTP app is built from, the plugins' manifests. */
export interface Registered {
  readonly parts: KernelParts;
  readonly manifests: ReadonlyArray<PluginManifest>;
  /** Called with the main listener's URL once it listens (`site.baseUrl()`). */
  setBaseUrl(url: string): void;
  /** The cluster (PostgreSQL), or this instance alone. */
  readonly cluster: RunningCluster;
}

export interface RegisterInputs {
  config: GatewayConfig;
  cwd: string;
  logger: Logger;
  ordered: OrderedPlugins;
  infrastructure: Infrastructure;
  lifecycle: Lifecycle;
}

/** Phase `register`: builds the kernel parts, registers `core` and every plugin, checks the route permissions. */
export async function registerPlugins(inputs: RegisterInputs): Promise<Registered> {
  const { config, logger, ordered, infrastructure: infra, lifecycle } = inputs;
  let baseUrl = '';
  const declaredListeners: KernelParts['declaredListeners'] = [];
  const listeners = () => [...lifecycle.owners.map(({ plugin, url }) => ({ plugin, ...hostAndPort(url) })), ...declaredListeners];
  // The kernel's own settings; those plugins declare on SiteSettings they add themselves (`ctx.extendSite`).
  const own: Pick<SiteSettings, 'baseUrl' | 'listeners' | 'host' | 'publicOrigins' | 'dataDir'> = { baseUrl: () => baseUrl, listeners, host: config.server.host, publicOrigins: config.server.publicOrigins ?? [], dataDir: infra.dataDir };
  const site = own as SiteSettings;
  const manifests: PluginManifest[] = [];
  const events = createEventBus(logger);
  // The cluster's code (heartbeat, leases, forwarding) is imported only with the PostgreSQL store.
  const cluster =
    infra.store.driver === 'postgres'
      ? await (await import('../cluster/cluster.js')).startCluster({ config, store: infra.store, internalKeys: infra.internalKeys, bus: events, logger })
      : singleInstance(instanceName(config), randomUUID());
  lifecycle.closeHooks.push({ plugin: CORE_PLUGIN, hook: () => cluster.close() });
  // A sign-out, password change, deletion or permission change on one instance ends what the user holds on every instance.
  cluster.shareDurably(['AccessRevoked']);
  // In a cluster the throttle's counts are the database's: guesses spread over the instances count together.
  const signIn = createSignInService(infra.auth, cluster.loginThrottle('sign-in', config.auth.login), events, logger);
  const parts: KernelParts = {
    site,
    siteOwners: new Map(),
    store: infra.store,
    events,
    cluster: cluster.cluster,
    pool: infra.pool,
    logger,
    auth: kernelPluginAuth(infra.auth, signIn),
    secrets: infra.secrets,
    routes: new RouteTable(),
    schemas: new SchemaRegistry(),
    tags: new Map(),
    upgrades: new Map<string, { plugin: string; handler: UpgradeHandler }>(),
    mounts: [],
    cors: { paths: new Set(), allowHeaders: [], exposeHeaders: [] },
    services: new Map(),
    manifests: () => [...manifests],
    dependencyClosure: ordered.dependencyClosure,
    async listen(plugin, handler, host, port) {
      const listener = await startListener(handler, host, port, config.server.tls);
      lifecycle.addListener(plugin, listener);
      logger.info('plugin listener started', { plugin, url: listener.url });
      return listener;
    },
    declaredListeners,
    readiness: kernelReadiness(infra, ordered.plugins, lifecycle.serving),
    readyHooks: lifecycle.readyHooks,
    stoppingHooks: lifecycle.stoppingHooks,
    closeHooks: lifecycle.closeHooks,
  };
  const core = corePlugin({ version: PACKAGE_VERSION, auth: infra.auth, signIn, plugins: () => manifests.map((p) => p.name), store: () => infra.store.status(), readiness: parts.readiness, cluster: cluster.cluster });
  await core.register(createPluginContext(core, {}, parts));
  for (const plugin of ordered.plugins) {
    validateOptions(plugin);
    manifests.push(manifestOf(plugin));
    await registerOne(plugin, parts);
  }
  parts.routes.checkPermissions(parts.auth.allPermissions());
  return { parts, manifests, cluster, setBaseUrl: (url) => void (baseUrl = url) };
}

async function registerOne(plugin: LoadedPlugin, parts: KernelParts): Promise<void> {
  const { def } = plugin;
  try {
    await def.register(createPluginContext(def, plugin.options, parts));
  } catch (err) {
    if (isPluginError(err) || isConfigError(err)) throw err;
    throw new PluginError('GW_ERR_PLUGIN_REGISTER', `plugin '${def.name}' failed to register: ${(err as Error).message}`, { cause: err });
  }
  parts.logger.debug('plugin registered', { plugin: def.name, version: def.version });
}

function manifestOf({ def, dependencies, optionalDependencies }: LoadedPlugin): PluginManifest {
  return { name: def.name, version: def.version, dependencies, optionalDependencies, permissions: def.permissions ?? [], routes: def.routes ?? [] };
}

function validateOptions(plugin: LoadedPlugin): void {
  if (!plugin.def.configSchema) return;
  if (!plugin.builtIn) checkThirdPartySchema(plugin);
  const validate = startValidator(plugin.def.configSchema);
  if (!validate(plugin.options)) {
    const problems = (validate.errors ?? []).map((e) => {
      const extra = e.keyword === 'additionalProperties' ? `.${String((e.params as { additionalProperty: string }).additionalProperty)}` : '';
      return `plugins.${plugin.name}.options${e.instancePath.replace(/\//g, '.')}${extra} ${e.keyword === 'additionalProperties' ? 'is not an allowed property' : e.message}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
}

/** The host (without IPv6 brackets) and port of a listener's URL. */
function hostAndPort(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  return { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/** A third-party plugin's options schema against the JSON Schema meta-schema (built-in ones are checked by the tests). */
function checkThirdPartySchema(plugin: LoadedPlugin): void {
  const ajv = startupValidator();
  if (ajv.validateSchema(plugin.def.configSchema as object)) return;
  const problems = (ajv.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join('; ');
  throw new PluginError('GW_ERR_PLUGIN_SCHEMA', `plugin '${plugin.name}' declares an invalid configSchema: ${problems}`);
}

/** The kernel's readiness checks: the store takes writes, the pool takes tasks, each plugin has started and is not stopping. */
function kernelReadiness(infra: Infrastructure, plugins: LoadedPlugin[], serving: () => boolean): ReadinessRegistry {
  const readiness = new ReadinessRegistry();
  readiness.add(CORE_PLUGIN, 'store', () => {
    const status = infra.store.status();
    return status.state === 'ok' ? { ready: true } : { ready: false, reason: `the store is ${status.state}: ${status.reason}` };
  });
  readiness.add(CORE_PLUGIN, 'workers', () => infra.pool.status());
  for (const { name } of plugins) readiness.add(CORE_PLUGIN, `plugin:${name}`, () => (serving() ? { ready: true } : { ready: false, reason: 'not started, or stopping' }));
  return readiness;
}
