/**
 * Start-up phases `load` and `order`: import every enabled plugin, check it against the contract,
 * apply the environment variables it declares, and order the plugins by their dependencies.
 */
import type { GatewayConfig, PluginSetting } from '../config/gateway-config.js';
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
  /** Built into the gateway (not given by `path` or `package`): its schemas are checked by the gateway's tests. */
  readonly builtIn: boolean;
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
  const builtIn = builtInTest(config);
  for (const [name, setting] of Object.entries(config.plugins)) {
    if (!setting.enable) continue;
    if (name === CORE_PLUGIN) throw new PluginError('GW_ERR_PLUGIN_NAME', `no plugin may be called '${CORE_PLUGIN}': the kernel goes by that name`);
    loaded.push(await loadOne(name, setting, cwd, builtIn(name)));
  }
  await addImpliedDependencies(loaded, config, cwd, builtIn, logger);
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
async function addImpliedDependencies(loaded: LoadedPlugin[], config: GatewayConfig, cwd: string, builtIn: (name: string) => boolean, logger?: Pick<Logger, 'info'>): Promise<void> {
  for (let i = 0; i < loaded.length; i++) {
    const requiring = loaded[i]!;
    if (!requiring.builtIn) continue;
    for (const dep of requiring.dependencies) {
      if (loaded.some((p) => p.name === dep) || !builtIn(dep)) continue;
      const plugin = await loadOne(dep, { ...config.plugins[dep], enable: true }, cwd, true);
      logger?.info('plugin enabled implicitly: a plugin enabled depends on it', { plugin: dep, requiredBy: requiring.name });
      loaded.push(plugin);
    }
  }
}

/** Whether a plugin name is a built-in one as this site configures it (not replaced by a `path` or `package`). */
function builtInTest(config: GatewayConfig): (name: string) => boolean {
  const names = new Set(builtInPluginNames());
  return (name) => names.has(name) && !config.plugins[name]?.path && !config.plugins[name]?.package;
}

async function loadOne(name: string, setting: PluginSetting, cwd: string, builtIn: boolean): Promise<LoadedPlugin> {
  const def = await loadPlugin(name, setting, cwd);
  return { name, dependencies: def.dependencies ?? [], optionalDependencies: def.optionalDependencies ?? [], def, options: structuredClone(setting.options ?? {}), builtIn };
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
