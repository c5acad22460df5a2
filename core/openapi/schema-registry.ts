import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonSchema } from '../validation/json-schema.js';

const COMPONENT_REF = '#/components/schemas/';
// A path, not a host: URI hosts are case-insensitive and would lose the schema name's capitals.
const AJV_PREFIX = 'https://amt-gateway.invalid/schemas/';

/** Named schemas shared by the OpenAPI document (`components.schemas`) and request validation. */
export class SchemaRegistry {
  private readonly schemas = new Map<string, { owner: string; schema: JsonSchema }>();

  add(owner: string, name: string, schema: JsonSchema): void {
    if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`schema name '${name}' of plugin '${owner}' is not a valid component name`);
    const existing = this.schemas.get(name);
    if (existing) throw new Error(`schema '${name}' is added by both plugin '${existing.owner}' and plugin '${owner}'`);
    this.schemas.set(name, { owner, schema });
  }

  components(): Record<string, JsonSchema> {
    return Object.fromEntries([...this.schemas].map(([name, { schema }]) => [name, schema]));
  }

  /** Registers every component with ajv under an id that `$ref`s are rewritten to. */
  installInto(ajv: Ajv2020): void {
    for (const [name, { schema }] of this.schemas) ajv.addSchema(toAjvRefs(schema) as object, AJV_PREFIX + name);
  }
}

/** Rewrites OpenAPI component `$ref`s so ajv resolves them against the registered schemas. */
export function toAjvRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toAjvRefs);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_REF) ? AJV_PREFIX + value.slice(COMPONENT_REF.length) : toAjvRefs(value);
  }
  return out;
}
