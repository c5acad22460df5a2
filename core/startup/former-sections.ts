/**
 * Top-level sections of the site file that the kernel does not read: each belongs to the enabled
 * plugin that claims it (`formerSections` of its definition, where some of its options lived before
 * they moved under `plugins.<name>.options`). A claimed section is merged under that plugin's options
 * (what the options set wins) with a deprecation warning; a section nobody claims stops start-up, as
 * an unknown key always did.
 */
import { KERNEL_SECTIONS, type GatewayConfig } from '../config/gateway-config.js';
import { ConfigError, mergeConfig } from '../config/load-config.js';
import type { Logger } from '../log/logger.js';
import { PluginError } from '../plugins/plugin-errors.js';
import type { LoadedPlugin } from './load-phase.js';

/** Merges every former section into the options of the plugin that claims it; refuses unclaimed and doubly claimed sections. */
export function applyFormerSections(config: GatewayConfig, plugins: readonly LoadedPlugin[], logger?: Pick<Logger, 'warn'>): void {
  const claims = new Map<string, LoadedPlugin>();
  for (const plugin of plugins) {
    for (const section of plugin.def.formerSections ?? []) {
      const holder = claims.get(section);
      if (KERNEL_SECTIONS.has(section) || holder) {
        throw new PluginError('GW_ERR_PLUGIN_CLASH', `site section '${section}' claimed by plugin '${plugin.name}' is read by ${holder ? `plugin '${holder.name}'` : 'the kernel'} already`);
      }
      claims.set(section, plugin);
    }
  }
  for (const [section, value] of Object.entries(config as Record<string, unknown>)) {
    if (KERNEL_SECTIONS.has(section)) continue;
    const plugin = claims.get(section);
    if (!plugin) throw new ConfigError(`invalid configuration: ${section} is not an allowed property (neither the kernel nor an enabled plugin reads it)`);
    const merged = mergeConfig(value as Record<string, unknown>, plugin.options);
    for (const key of Object.keys(plugin.options)) delete plugin.options[key];
    Object.assign(plugin.options, merged);
    logger?.warn(`site section '${section}' is deprecated: set its keys under plugins.${plugin.name}.options (they apply there now; a key set in both places takes the plugins.${plugin.name}.options one)`);
  }
}
