import { existsSync, readdirSync, statSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KERNEL_API_VERSION, type PluginDefinition } from '../plugin-api.js';
import type { PluginSetting } from '../config/gateway-config.js';
import { isPluginError, PluginError } from './plugin-errors.js';
import { codePath } from '../assets/package-root.js';

const BUILT_IN_DIR = codePath('plugins');
const INDEX_FILES = ['index.ts', 'index.js', 'index.mjs'];

/** Built-in plugin names: the folders of `plugins/` that have an index. */
export function builtInPluginNames(): string[] {
  const names: string[] = [];
  for (const entry of existsSync(BUILT_IN_DIR) ? readdirSync(BUILT_IN_DIR) : []) {
    if (INDEX_FILES.some((f) => existsSync(join(BUILT_IN_DIR, entry, f)))) names.push(entry);
  }
  return names.sort();
}

function moduleFile(path: string): string {
  if (existsSync(path) && statSync(path).isDirectory()) {
    const index = INDEX_FILES.map((f) => join(path, f)).find((f) => existsSync(f));
    if (!index) throw new Error(`no ${INDEX_FILES.join(', ')} in ${path}`);
    return index;
  }
  return path;
}

/** Where a configured plugin's module is: built-in by name, third-party by `path` or `package`. */
export function pluginSpecifier(name: string, setting: PluginSetting, cwd: string): string {
  if (setting.path) return pathToFileURL(moduleFile(resolve(cwd, setting.path))).href;
  if (setting.package) return setting.package;
  const dir = join(BUILT_IN_DIR, name);
  if (!existsSync(dir)) throw new PluginError('GW_ERR_PLUGIN_UNKNOWN', `plugin '${name}' is not built in; give it a "path" or "package" in the configuration`);
  return pathToFileURL(moduleFile(dir)).href;
}

function acceptsKernel(range: string): boolean {
  const major = KERNEL_API_VERSION.split('.')[0];
  return range.split('||').map((r) => r.trim().replace(/^\^|\.x$|\.\*$/g, '').split('.')[0]).includes(major);
}

/** Imports a plugin module and checks its default export against the plugin contract. */
export async function loadPlugin(name: string, setting: PluginSetting, cwd: string): Promise<PluginDefinition<Record<string, unknown>>> {
  let specifier: string;
  let module: { default?: unknown };
  try {
    specifier = pluginSpecifier(name, setting, cwd);
    module = (await import(specifier)) as { default?: unknown };
  } catch (err) {
    if (isPluginError(err)) throw err;
    throw new PluginError('GW_ERR_PLUGIN_LOAD', `plugin '${name}' could not be loaded: ${(err as Error).message}`, { cause: err });
  }
  const def = module.default as Partial<PluginDefinition<Record<string, unknown>>> | undefined;
  if (!def || typeof def !== 'object' || typeof def.register !== 'function' || typeof def.name !== 'string' || typeof def.version !== 'string') {
    throw new PluginError('GW_ERR_PLUGIN_INVALID', `plugin '${name}' (${specifier}) does not default-export a definePlugin({ name, version, register }) definition`);
  }
  if (def.name !== name) {
    throw new PluginError('GW_ERR_PLUGIN_NAME', `plugin module ${specifier} declares the name '${def.name}' but is configured as '${name}'`);
  }
  // Refused rather than assumed: a plugin that does not say which API it was written against
  // could be from any release, and a mismatch would surface later as a confusing runtime error.
  if (typeof def.kernel !== 'string' || def.kernel.trim() === '') {
    throw new PluginError('GW_ERR_PLUGIN_KERNEL', `plugin '${name}' does not declare the kernel API it works with; add kernel: '${KERNEL_API_VERSION.split('.')[0]}' (this kernel implements ${KERNEL_API_VERSION})`);
  }
  if (!acceptsKernel(def.kernel)) {
    throw new PluginError('GW_ERR_PLUGIN_KERNEL', `plugin '${name}' requires kernel API ${def.kernel}; this kernel implements ${KERNEL_API_VERSION}`);
  }
  return def as PluginDefinition<Record<string, unknown>>;
}
