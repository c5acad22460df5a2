import { PluginError } from './plugin-errors.js';

export interface Orderable {
  name: string;
  dependencies: string[];
  /** Ordered before the plugin when enabled; absent ones are ignored. */
  optionalDependencies?: string[];
}

/**
 * Orders plugins so that each comes after its dependencies; ties are broken by name, never by the
 * order the configuration lists them in. A missing or circular dependency is an error naming the plugins.
 */
export function orderPlugins<T extends Orderable>(given: T[]): T[] {
  const enabled = new Set(given.map((p) => p.name));
  // An enabled optional dependency orders like a dependency; an absent one drops out of the list.
  const plugins = given.map((p) => ({ ...p, optionalDependencies: (p.optionalDependencies ?? []).filter((d) => enabled.has(d)) }));
  const byName = new Map(plugins.map((p) => [p.name, p]));
  for (const plugin of plugins) {
    for (const dep of plugin.dependencies) {
      if (!byName.has(dep)) {
        throw new PluginError('GW_ERR_PLUGIN_DEPENDENCY_MISSING', `dependency '${dep}' of plugin '${plugin.name}' is not enabled`);
      }
    }
  }
  const ordered: T[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (plugin: T & { optionalDependencies: string[] }, path: string[]) => {
    const mark = state.get(plugin.name);
    if (mark === 'done') return;
    if (mark === 'visiting') {
      const cycle = [...path.slice(path.indexOf(plugin.name)), plugin.name];
      throw new PluginError('GW_ERR_PLUGIN_DEPENDENCY_CYCLE', `circular plugin dependency: ${cycle.join(' -> ')}`);
    }
    state.set(plugin.name, 'visiting');
    for (const dep of [...new Set([...plugin.dependencies, ...plugin.optionalDependencies])].sort()) visit(byName.get(dep)!, [...path, plugin.name]);
    state.set(plugin.name, 'done');
    ordered.push(plugin);
  };
  // Code-unit order: names are kebab-case ASCII, and localeCompare's first call loads ICU's collator (~40 ms of start).
  for (const plugin of [...plugins].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) visit(plugin, []);
  return ordered;
}
