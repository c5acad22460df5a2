import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { ProblemFieldError } from '../http/http-error.js';
import formatsModule from 'ajv-formats';
import type { JsonSchema } from './json-schema.js';

// ajv-formats ships CommonJS: under NodeNext its default import is the module object, its function
// under `.default` (a static import, so that the build bundles it rather than Node resolving ajv's
// files one by one at start).
const addFormats = ((formatsModule as unknown as { default?: unknown }).default ?? formatsModule) as (ajv: Ajv2020) => Ajv2020;

export interface ValidatorOptions {
  /** Coerce strings to the declared types (query strings). */
  coerceTypes?: boolean;
  /** Fill in `default` values. */
  useDefaults?: boolean;
  /**
   * Skip checking each schema against the JSON Schema meta-schema when it is added or compiled:
   * compiling the meta-schema is ~45 ms of a cold start per instance. Only for the kernel's and the
   * built-in plugins' schemas, which a test checks against the meta-schema instead; a third-party
   * schema is checked with `ajv.validateSchema(schema, true)`.
   */
  trustedSchemas?: boolean;
  /** Errors carry their schema and parent schema (default on: `x-pattern-message` needs them). */
  verbose?: boolean;
  /** Keep each validator's source, for `ajv/dist/standalone` (the build's precompiled validators). */
  standaloneSource?: boolean;
}

/** Creates an ajv instance (JSON Schema 2020-12, formats) with the gateway's settings. */
export function createAjv(options: ValidatorOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    coerceTypes: options.coerceTypes ?? false,
    useDefaults: options.useDefaults ?? false,
    validateSchema: options.trustedSchemas !== true,
    ...(options.standaloneSource ? { code: { source: true, esm: true } } : {}),
    // Errors carry their schema, so that a pattern can say in words what it requires (`x-pattern-message`).
    verbose: options.verbose ?? true,
  });
  addFormats(ajv);
  return ajv;
}

/** How what a start validates (the site configuration, the plugins' options) is validated: defaults filled in (the configuration's schema declares none). */
export const STARTUP_VALIDATION: ValidatorOptions = { useDefaults: true, trustedSchemas: true };

let startupAjv: Ajv2020 | undefined;

/**
 * The one ajv for what a start validates and the build did not precompile (start-validators.ts).
 * Made once per process and kept, so that a start compiles no meta-schema and a second start in the
 * same process (tests) compiles nothing again.
 */
export function startupValidator(): Ajv2020 {
  return (startupAjv ??= createAjv(STARTUP_VALIDATION));
}

/** Turns ajv errors into `{path, message}` pairs that name the field and the reason. */
export function describeErrors(errors: ErrorObject[] | null | undefined, root = ''): ProblemFieldError[] {
  if (!errors) return [];
  return errors.map((e) => {
    let path = root + e.instancePath.replace(/\//g, '.');
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'additionalProperties') {
      const extra = String((e.params as { additionalProperty: string }).additionalProperty);
      path = `${path}.${extra}`;
      message = 'is not an allowed property';
    } else if (e.keyword === 'required') {
      path = `${path}.${String((e.params as { missingProperty: string }).missingProperty)}`;
      message = 'is required';
    } else if (e.keyword === 'pattern' && typeof (e.parentSchema as { 'x-pattern-message'?: unknown } | undefined)?.['x-pattern-message'] === 'string') {
      message = (e.parentSchema as { 'x-pattern-message': string })['x-pattern-message'];
    } else if (e.keyword === 'enum') {
      message = `must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    }
    return { path: path.replace(/^\./, '') || root || '(root)', message };
  });
}

export type { ValidateFunction, JsonSchema };
