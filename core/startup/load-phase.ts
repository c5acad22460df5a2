/**
 * Start-up phases `load` and `order`: import every enabled plugin, check it against the contract,
 * apply the environment variables it declares, and order the plugins by their dependencies.
 */
import type { GatewayConfig } from '../config/gateway-config.js';
import { applyPluginEnv, checkPluginEnv } from '../config/plugin-env.js';
import { applyFormerSections } from './former-sections.js';
import type { PermissionDeclaration, PluginDefinition } from '../plugin-api.js';
import { builtInPluginNames, loadPlugin } from '../plugins/plugin-loader.js';
import type { Logger } from '../log/logger.js';
import { orderPlugins } from '../plugins/plugin-order.js';
import { PluginError } from '../plugins/plugin-errors.js';
import { collectPermissions } from '../plugins/plugin-permissions.js';
import { CORE_PERMISSIONS } from '../auth/core-permissions.js';
import { CORE_PLUGIN } from '../core-plugin.js';

/** An enabled plugin, imported and checked; `options` are the site's with the plugin's environment variables applied. */
export interface LoadedPlugin {
  readonly name: string;
  readonly dependencies: string[];
  readonly optionalDependencies: string[];
  readonly def: PluginDefinition<Record<string, unknown>>;
  readonly options: Record<string, unknown>;
}

/** The plugins in registration order, with what order implies. */
export interface OrderedPlugins {
  readonly plugins: LoadedPlugin[];
  /** Every permission name (the kernel's and the plugins'), frozen: plugins receive this very list. */
  readonly permissionNames: string[];
  /** The transitive dependencies (required and optional) of each plugin. */
  readonly dependencyClosure: (name: string) => Set<string>;
}

/** Phase `load`: imports every enabled plugin and checks it against the contract. */
export async function loadEnabledPlugins(config: GatewayConfig, cwd: string, env: NodeJS.ProcessEnv, logger?: Pick<Logger, 'info' | 'warn'>): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  for (const [name, setting] of Object.entries(config.plugins)) {
    if (!setting.enable) continue;
    if (name === CORE_PLUGIN) throw new PluginError('GW_ERR_PLUGIN_NAME', `no plugin may be called '${CORE_PLUGIN}': the kernel goes by that name`);
    const def = await loadPlugin(name, setting, cwd);
    loaded.push({ name, dependencies: def.dependencies ?? [], optionalDependencies: def.optionalDependencies ?? [], def, options: structuredClone(setting.options ?? {}) });
  }
  await addImpliedDependencies(loaded, config, cwd, logger);
  applyFormerSections(config, loaded, logger);
  checkPluginEnv(loaded.map((p) => ({ name: p.name, env: p.def.env ?? {} })));
  for (const plugin of loaded) applyPluginEnv(plugin.def.env ?? {}, plugin.options, env);
  return loaded;
}

/**
 * A built-in plugin that an enabled built-in plugin depends on is enabled with it (as Egg does), so
 * a site whose configuration predates a split (`rest-api` before `devices`) keeps starting. Logged,
 * since it overrides an `enable: false`. A third-party plugin's missing dependency stays an error:
 * its site says what it enables.
 */
async function addImpliedDependencies(loaded: LoadedPlugin[], config: GatewayConfig, cwd: string, logger?: Pick<Logger, 'info'>): Promise<void> {
  const builtIn = new Set(builtInPluginNames());
  const thirdParty = (name: string) => !builtIn.has(name) || Boolean(config.plugins[name]?.path || config.plugins[name]?.package);
  for (let i = 0; i < loaded.length; i++) {
    const requiring = loaded[i]!;
    if (thirdParty(requiring.name)) continue;
    for (const dep of requiring.dependencies) {
      if (loaded.some((p) => p.name === dep) || thirdParty(dep)) continue;
      const setting = { ...config.plugins[dep], enable: true };
      const def = await loadPlugin(dep, setting, cwd);
      logger?.info('plugin enabled implicitly: a plugin enabled depends on it', { plugin: dep, requiredBy: requiring.name });
      loaded.push({ name: dep, dependencies: def.dependencies ?? [], optionalDependencies: def.optionalDependencies ?? [], def, options: structuredClone(setting.options ?? {}) });
    }
  }
}

/** Phase `order`: dependency order (refusing cycles and missing dependencies) and the permission list. */
export function orderLoadedPlugins(loaded: LoadedPlugin[]): OrderedPlugins {
  const plugins = orderPlugins(loaded);
  const declared: Array<{ name: string; permissions: PermissionDeclaration[] }> = [{ name: CORE_PLUGIN, permissions: CORE_PERMISSIONS }, ...plugins.map((p) => ({ name: p.name, permissions: p.def.permissions ?? [] }))];
  return { plugins, permissionNames: Object.freeze(collectPermissions(declared)) as string[], dependencyClosure: closure(plugins) };
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
