import type { RequestListener } from 'node:http';
import type {
  GatewayServices,
  PluginContext,
  PluginDefinition,
  PluginManifest,
  PluginAuth,
  PluginSecrets,
  SiteSettings,
  UpgradeHandler,
} from '../plugin-api.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../log/logger.js';
import type { WorkerPool } from '../pool/worker-pool.js';
import type { GatewayStore } from '../store/level-store.js';
import type { RouteTable } from '../http/route-table.js';
import type { SchemaRegistry } from '../openapi/schema-registry.js';
import type { Listener } from '../http/listener.js';
import type { MountHandler, RouteSpec } from '../http/route-api.js';
import { clientAddress } from '../http/client-address.js';
import { PluginError } from './plugin-errors.js';
import type { ReadinessRegistry } from '../health/readiness.js';
import type { PluginCluster } from '../cluster/cluster-api.js';

type Hook = () => void | Promise<void>;

/** What the plugins told the kernel about cross-origin access (see `ctx.http.cors`). */
export interface CorsRegistry {
  /** Prefixes of routes and mounts. */
  paths: Set<string>;
  allowHeaders: string[];
  exposeHeaders: string[];
}

/** What the kernel shares with every plugin context. */
export interface KernelParts {
  site: SiteSettings;
  /** Which plugin added each setting of `site` beyond the kernel's (`ctx.extendSite`). */
  siteOwners: Map<string, string>;
  store: GatewayStore;
  events: EventBus;
  pool: WorkerPool;
  logger: Logger;
  auth: PluginAuth;
  secrets: PluginSecrets;
  routes: RouteTable;
  schemas: SchemaRegistry;
  tags: Map<string, string>;
  upgrades: Map<string, { plugin: string; handler: UpgradeHandler }>;
  mounts: Array<{ plugin: string; prefix: string; handler: MountHandler }>;
  cors: CorsRegistry;
  services: Map<string, { plugin: string; service: unknown }>;
  manifests: () => PluginManifest[];
  /** The transitive dependencies of each plugin. */
  dependencyClosure: (plugin: string) => Set<string>;
  listen: (plugin: string, handler: RequestListener, host: string, port: number) => Promise<Listener>;
  /** Listeners plugins opened themselves and declared (`ctx.declareListener`). */
  declaredListeners: Array<{ plugin: string; host: string; port: number }>;
  readiness: ReadinessRegistry;
  cluster: PluginCluster;
  readyHooks: Hook[];
  stoppingHooks: Array<{ plugin: string; hook: Hook }>;
  closeHooks: Array<{ plugin: string; hook: Hook }>;
}

/** Builds the context one plugin registers against: everything scoped to that plugin. */
export function createPluginContext<TConfig>(def: PluginDefinition<TConfig>, config: TConfig, parts: KernelParts): PluginContext<TConfig> {
  const name = def.name;
  const prefix = def.prefix ?? `/api/${name}`;
  const use = <K extends keyof GatewayServices>(serviceName: K): GatewayServices[K] => {
    const entry = parts.services.get(serviceName);
    if (!entry) throw new PluginError('GW_ERR_SERVICE_MISSING', `plugin '${name}' uses service '${String(serviceName)}', which no registered plugin provides`);
    if (!parts.dependencyClosure(name).has(entry.plugin)) {
      throw new PluginError('GW_ERR_SERVICE_UNDECLARED', `plugin '${name}' uses service '${String(serviceName)}' of plugin '${entry.plugin}' without declaring it as a dependency`);
    }
    return entry.service as GatewayServices[K];
  };
  return {
    name,
    config,
    site: parts.site,
    http: {
      prefix,
      route(spec: RouteSpec) {
        parts.routes.add(name, prefix, spec);
        parts.cors.paths.add(prefix);
      },
      onUpgrade(path, handler) {
        const owner = parts.upgrades.get(path);
        if (owner) throw new PluginError('GW_ERR_PLUGIN_CLASH', `upgrade path ${path} of plugin '${name}' is already claimed by plugin '${owner.plugin}'`);
        parts.upgrades.set(path, { plugin: name, handler });
      },
      clientAddress,
      mount(pathPrefix, handler) {
        parts.mounts.push({ plugin: name, prefix: pathPrefix, handler });
        parts.cors.paths.add(pathPrefix);
      },
      cors(registration) {
        parts.cors.allowHeaders.push(...(registration.allowHeaders ?? []));
        parts.cors.exposeHeaders.push(...(registration.exposeHeaders ?? []));
      },
    },
    openapi: {
      addSchema(schemaName, schema) {
        parts.schemas.add(name, schemaName, schema);
      },
      addTag(tag, description) {
        parts.tags.set(tag, description);
      },
    },
    store: parts.store.namespace(`plugin:${def.storeNamespace ?? name}`),
    events: parts.events,
    cluster: parts.cluster,
    pool: parts.pool,
    logger: parts.logger.child({ plugin: name }),
    auth: {
      ...parts.auth,
      // Deprecated: no client address to count by, so the plugin's name stands for one.
      verifyPassword: async (username, password) => {
        const result = await parts.auth.signIn({ username, password, address: `plugin:${name}`, door: 'plugin' });
        return result.outcome === 'success' ? result.user : null;
      },
    },
    secrets: parts.secrets,
    health: {
      addReadinessCheck(checkName, check) {
        parts.readiness.add(name, `plugin:${name}/${checkName}`, check);
      },
    },
    plugins: parts.manifests,
    provide(serviceName, service) {
      const existing = parts.services.get(serviceName);
      if (existing) throw new PluginError('GW_ERR_PLUGIN_CLASH', `service '${String(serviceName)}' is provided by both plugin '${existing.plugin}' and plugin '${name}'`);
      parts.services.set(serviceName, { plugin: name, service });
    },
    use,
    useOptional: <K extends keyof GatewayServices>(serviceName: K) => (parts.services.has(serviceName) ? use(serviceName) : undefined),
    async listen(handler, options) {
      const listener = await parts.listen(name, handler, options.host, options.port);
      return { server: listener.server, url: listener.url };
    },
    declareListener(address) {
      parts.declaredListeners.push({ plugin: name, host: address.host, port: address.port });
    },
    onReady(hook) {
      parts.readyHooks.push(hook);
    },
    onStopping(hook) {
      parts.stoppingHooks.push({ plugin: name, hook });
    },
    onClose(hook) {
      parts.closeHooks.push({ plugin: name, hook });
    },
    extendSite(settingName, value) {
      const holder = parts.siteOwners.get(settingName) ?? (settingName in parts.site ? 'core' : undefined);
      if (holder) throw new PluginError('GW_ERR_PLUGIN_CLASH', `site setting '${settingName}' of plugin '${name}' is held by ${holder === 'core' ? 'the kernel' : `plugin '${holder}'`} already`);
      parts.siteOwners.set(settingName, name);
      Object.defineProperty(parts.site, settingName, { value, enumerable: true });
    },
  };
}
