/**
 * Environment variables that override the kernel's part of the configuration file (CONTRACT section
 * 0). A plugin's options are overridden by the variables the plugin declares (`env` of its
 * definition, applied by core/config/plugin-env.ts), never listed here.
 */
type Setter = (config: Record<string, unknown>, value: string) => void;

export function setPath(config: Record<string, unknown>, path: string[], value: unknown): void {
  let node = config;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

const list = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);
/** `1`/`true` and `0`/`false`; anything else stays a string so that validation names the field. */
const flag = (value: string): boolean | string => (/^(1|true)$/i.test(value.trim()) ? true : /^(0|false)$/i.test(value.trim()) ? false : value);
/** Keeps a non-numeric value as a string so that validation names the field. */
const numeric = (value: string): number | string => (/^\d+$/.test(value.trim()) ? Number(value) : value);

/** How a variable's text becomes a configuration value. */
export type EnvValueType = 'string' | 'integer' | 'number' | 'boolean' | 'list';

export function parseEnvValue(type: EnvValueType, value: string): unknown {
  if (type === 'integer') return numeric(value);
  if (type === 'number') return /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  if (type === 'boolean') return flag(value);
  if (type === 'list') return list(value);
  return value;
}

const OVERRIDES: Record<string, Setter> = {
  AMTGW_HOST: (c, v) => setPath(c, ['server', 'host'], v),
  AMTGW_PORT: (c, v) => setPath(c, ['server', 'port'], numeric(v)),
  AMTGW_DATA_DIR: (c, v) => setPath(c, ['dataDir'], v),
  AMTGW_CORS_ORIGINS: (c, v) => setPath(c, ['cors', 'origins'], list(v)),
  AMTGW_PUBLIC_ORIGINS: (c, v) => setPath(c, ['server', 'publicOrigins'], list(v)),
  AMTGW_TLS_CERT: (c, v) => setPath(c, ['server', 'tls', 'cert'], v),
  AMTGW_TLS_KEY: (c, v) => setPath(c, ['server', 'tls', 'key'], v),
  AMTGW_LOG_LEVEL: (c, v) => setPath(c, ['log', 'level'], v),
  AMTGW_STORE_DRIVER: (c, v) => setPath(c, ['store', 'driver'], v),
  AMTGW_STORE_URL: (c, v) => setPath(c, ['store', 'url'], v),
  AMTGW_INSTANCE_NAME: (c, v) => setPath(c, ['cluster', 'instanceName'], v),
  AMTGW_ADVERTISE_URL: (c, v) => setPath(c, ['cluster', 'advertiseUrl'], v),
};

/** Applies the AMTGW_* variables present in `env` to a configuration object, in place. */
export function applyEnvOverrides(config: Record<string, unknown>, env: NodeJS.ProcessEnv): void {
  for (const [name, set] of Object.entries(OVERRIDES)) {
    const value = env[name];
    if (value !== undefined && value !== '') set(config, value);
  }
  // A plugin entry that does not say `enable` is not enabled.
  const plugins = config.plugins as Record<string, Record<string, unknown>> | undefined;
  for (const entry of Object.values(plugins ?? {})) if (entry.enable === undefined) entry.enable = false;
}

export const ENV_VARIABLES = Object.keys(OVERRIDES);
