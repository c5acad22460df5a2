/** Which built-in plugins exist in this tree (a folder of plugins/ with an index), for benchmarks that need one. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PluginChoice } from './gateway-process.js';

const PLUGINS = fileURLToPath(new URL('../../plugins/', import.meta.url));
/** Stands in for remote-monitor where it is missing: `presence` over the stored devices' online flags. */
export const PRESENCE_FIXTURE = fileURLToPath(new URL('./fixtures/bench-presence-plugin.ts', import.meta.url));

export function pluginAvailable(name: string): boolean {
  return ['index.ts', 'index.js', 'index.mjs'].some((f) => existsSync(`${PLUGINS}${name}/${f}`));
}

/** The reason a benchmark needing these plugins cannot run, or undefined. */
export function missingPlugins(names: string[]): string | undefined {
  const missing = names.filter((n) => !pluginAvailable(n));
  return missing.length ? `plugin ${missing.join(', ')} not available (no plugins/${missing[0]}/index.ts in this tree)` : undefined;
}

/**
 * The remote-monitor to run with soap-mps: the bench fixture, which reads presence from the stored
 * devices, so that 100,000 connected machines need only be seeded. (The real plugin would have to
 * probe each machine before calling it connected.)
 */
export function presencePlugin(): Record<string, PluginChoice> {
  return { 'remote-monitor': { path: PRESENCE_FIXTURE } };
}

/** Every built-in plugin that can start here, as a site would run them (presence fixture for remote-monitor when missing). */
export function everyAvailablePlugin(): Record<string, PluginChoice> {
  const plugins: Record<string, PluginChoice> = {};
  for (const name of ['rest-api', 'route-permissions', 'scan-hub', 'power-mgmt', 'remote-monitor', 'soap-mps']) {
    if (pluginAvailable(name)) plugins[name] = {};
  }
  if (plugins['soap-mps'] && !plugins['remote-monitor']) Object.assign(plugins, presencePlugin());
  if (plugins['soap-mps']) plugins['soap-mps'] = { options: { port: 0 } };
  return plugins;
}
