import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { createRequire } from 'node:module';
import type { ProblemFieldError } from '../http/http-error.js';
import type { JsonSchema } from './json-schema.js';

// ajv-formats ships CommonJS whose default export NodeNext types as the module namespace.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv2020) => Ajv2020;

export interface ValidatorOptions {
  /** Coerce strings to the declared types (query strings). */
  coerceTypes?: boolean;
  /** Fill in `default` values. */
  useDefaults?: boolean;
}

/** Creates an ajv instance (JSON Schema 2020-12, formats) with the gateway's settings. */
export function createAjv(options: ValidatorOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    coerceTypes: options.coerceTypes ?? false,
    useDefaults: options.useDefaults ?? false,
    // Errors carry their schema, so that a pattern can say in words what it requires (`x-pattern-message`).
    verbose: true,
  });
  addFormats(ajv);
  return ajv;
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
