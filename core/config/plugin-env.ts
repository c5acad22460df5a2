/**
 * Environment variables that override a plugin's options, as the plugin declares them
 * (`env` of its definition): the kernel applies them to an enabled plugin's options before it
 * validates them, so a variable never enables a plugin by itself.
 */
import type { PluginEnvOverride } from '../plugin-api.js';
import { PluginError } from '../plugins/plugin-errors.js';
import { ENV_VARIABLES, parseEnvValue, setPath } from './env-overrides.js';

const NAME = /^[A-Z][A-Z0-9_]*$/;

/** Refuses a declared variable that the kernel reads already or that another enabled plugin declares, naming both. */
export function checkPluginEnv(plugins: ReadonlyArray<{ name: string; env: Readonly<Record<string, PluginEnvOverride>> }>): void {
  const owners = new Map<string, string>(ENV_VARIABLES.map((variable) => [variable, 'core']));
  for (const { name, env } of plugins) {
    for (const variable of Object.keys(env)) {
      if (!NAME.test(variable)) throw new PluginError('GW_ERR_PLUGIN_INVALID', `plugin '${name}' declares the environment variable '${variable}': names are upper case, digits and _`);
      const owner = owners.get(variable);
      if (owner) throw new PluginError('GW_ERR_PLUGIN_CLASH', `environment variable ${variable} of plugin '${name}' is read by ${owner === 'core' ? 'the kernel' : `plugin '${owner}'`} already`);
      owners.set(variable, name);
    }
  }
}

/** Applies the declared variables present (and not empty) in `env` to `options`, in place. */
export function applyPluginEnv(declared: Readonly<Record<string, PluginEnvOverride>>, options: Record<string, unknown>, env: NodeJS.ProcessEnv): void {
  for (const [variable, override] of Object.entries(declared)) {
    const value = env[variable];
    if (value !== undefined && value !== '') setPath(options, override.option.split('.'), parseEnvValue(override.type ?? 'string', value));
  }
}
