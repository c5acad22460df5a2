import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { packagePath } from '../assets/package-root.js';
import { describeErrors } from '../validation/validator.js';
import { startValidator } from '../validation/start-validators.js';
import { applyEnvOverrides } from './env-overrides.js';
import { GATEWAY_CONFIG_SCHEMA, type GatewayConfig } from './gateway-config.js';

const DEFAULT_FILE = packagePath('config', 'default.json');

import { isErrorOf, type CodedError } from '../util/error-shape.js';

/** A configuration that cannot start the gateway; the message names the field and the reason. */
export class ConfigError extends Error {
  readonly code = 'GW_ERR_CONFIG';
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Whether `err` is a ConfigError, of any copy of the kernel (recognised by its shape). */
export function isConfigError(err: unknown): err is CodedError {
  return isErrorOf(err, 'ConfigError', ['GW_ERR_CONFIG']);
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Deep-merges `overlay` onto `base`: objects merge, everything else (arrays included) replaces. */
export function mergeConfig(base: Json, overlay: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    out[key] = isObject(value) && isObject(out[key]) ? mergeConfig(out[key] as Json, value) : structuredClone(value);
  }
  return out;
}

function readJson(file: string, what: string): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read ${what} ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (!isObject(parsed)) throw new Error('the top level must be an object');
    return parsed;
  } catch (err) {
    throw new ConfigError(`${what} ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

export interface LoadConfigOptions {
  /** Site file (from --config or AMTGW_CONFIG). */
  file?: string;
  /** An in-memory overlay applied after the site file (tests, the demo). */
  overrides?: Json;
  env?: NodeJS.ProcessEnv;
}

/** Reads default.json, the site file, the overlay and the environment; validates the result. */
export function loadConfig(options: LoadConfigOptions = {}): GatewayConfig {
  const env = options.env ?? process.env;
  let config = readJson(DEFAULT_FILE, 'default configuration');
  const siteFile = options.file ?? env.AMTGW_CONFIG;
  if (siteFile) config = mergeConfig(config, readJson(siteFile, 'site configuration'));
  if (options.overrides) config = mergeConfig(config, options.overrides);
  applyEnvOverrides(config, env);
  return validateConfig(config);
}

let schemaValidator: ValidateFunction<GatewayConfig> | undefined;

export function validateConfig(config: Json): GatewayConfig {
  schemaValidator ??= startValidator<GatewayConfig>(GATEWAY_CONFIG_SCHEMA);
  if (!schemaValidator(config)) {
    const problems = describeErrors(schemaValidator.errors).map((e) => `${e.path} ${e.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const tls = config.server.tls;
  if (Boolean(tls.cert) !== Boolean(tls.key)) {
    throw new ConfigError('invalid configuration: server.tls needs both cert and key (AMTGW_TLS_CERT and AMTGW_TLS_KEY)');
  }
  return config;
}
