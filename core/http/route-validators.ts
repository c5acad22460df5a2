/**
 * The routes' request validators, compiled from their schemas when a route is first called: a start
 * compiles none (ajv's code generation was a fifth of a start's CPU). The two ajv instances, with the
 * shared component schemas installed, are made with the first validator. `compileAll` compiles every
 * one at once, for gateways started with `checkSchemas` (the tests), so that a schema that does not
 * compile fails at start there.
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import type { SchemaRegistry } from '../openapi/schema-registry.js';
import { toAjvRefs } from '../openapi/schema-registry.js';
import { createAjv } from '../validation/validator.js';
import type { JsonSchema } from '../validation/json-schema.js';

/** A validator made on its first call and kept. */
export type LazyValidator = () => ValidateFunction;

export class RouteValidators {
  readonly #schemas: SchemaRegistry;
  readonly #made: LazyValidator[] = [];
  #body: Ajv2020 | undefined;
  #query: Ajv2020 | undefined;

  constructor(schemas: SchemaRegistry) {
    this.#schemas = schemas;
  }

  /** A JSON body's validator (no coercion, no defaults). */
  body(schema: JsonSchema): LazyValidator {
    return this.#lazy(() => (this.#body ??= this.#ajv(createAjv())), schema);
  }

  /** A query string's validator: strings coerced to the declared types, defaults filled in. */
  query(schema: JsonSchema): LazyValidator {
    return this.#lazy(() => (this.#query ??= this.#ajv(createAjv({ coerceTypes: true, useDefaults: true }))), schema);
  }

  /** Compiles every validator handed out so far. */
  compileAll(): void {
    for (const validator of this.#made) validator();
  }

  #ajv(ajv: Ajv2020): Ajv2020 {
    this.#schemas.installInto(ajv);
    return ajv;
  }

  #lazy(ajv: () => Ajv2020, schema: JsonSchema): LazyValidator {
    let compiled: ValidateFunction | undefined;
    const validator = () => (compiled ??= ajv().compile(toAjvRefs(schema) as object));
    this.#made.push(validator);
    return validator;
  }
}
