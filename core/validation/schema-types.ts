/**
 * TypeBox helpers for schemas that keep the JSON Schema shape the OpenAPI document has always
 * shown: an `enum` of strings (TypeBox's own union would be an `anyOf` of `const`s), nullable types
 * as `type: [x, 'null']`, and a `$ref` to a component schema, each typed like the schema they stand
 * for. Shape modules import these and TypeBox only, so that the console can import their types.
 */
import { Type, type SchemaOptions, type Static, type TObject, type TProperties, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** `{ enum: [...values] }`, typed as the union of the values. */
export function StringEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ enum: [...values], ...options });
}

/** `{ type: ['string', 'null'], ...options }`, typed `string | null` (TypeBox's own would be an `anyOf`). */
export function NullableString(options: SchemaOptions = {}): TUnsafe<string | null> {
  return Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
}

/**
 * `{ $ref: '#/components/schemas/<name>' }`, typed as `schema` (which a plugin adds with
 * `ctx.openapi.addSchema(name, schema)`). Given as a type argument instead
 * (`ComponentRef<typeof DEVICE_SCHEMA>('Device')`), another plugin's shape is referred to with a
 * type-only import.
 */
export function ComponentRef<S extends TSchema>(name: string, schema?: S): TUnsafe<Static<S>> {
  void schema;
  return Type.Unsafe<Static<S>>({ $ref: `#/components/schemas/${name}` });
}

/** A section of a plugin's options: an object of its own fields, no others, `{}` when left out (so its defaults apply). */
export function Section<P extends TProperties>(properties: P): TObject<P> {
  return Type.Object(properties, { additionalProperties: false, default: {} });
}

/** `{ enum: [...values, null] }`, typed as the union of the values or null. */
export function NullableEnum<const T extends readonly string[]>(values: T, options: SchemaOptions = {}): TUnsafe<T[number] | null> {
  return Type.Unsafe<T[number] | null>({ enum: [...values, null], ...options });
}

/** A schema of one JSON type (`{ type: 'x', ... }`) that also admits null: `{ type: ['x', 'null'], ... }`, typed `Static<S> | null`. */
export function Nullable<S extends TSchema>(schema: S): TUnsafe<Static<S> | null> {
  // Its string keys only: TypeBox's symbols would name the schema's old kind.
  const { type, ...rest } = Object.fromEntries(Object.entries(schema)) as { type?: unknown };
  if (typeof type !== 'string') throw new Error('Nullable takes a schema of one JSON type');
  return Type.Unsafe<Static<S> | null>({ ...rest, type: [type, 'null'] });
}

/** `{ type: 'string', format: 'date-time' }`: an ISO 8601 instant, as every time in the API is. */
export function DateTime(options: SchemaOptions = {}) {
  return Type.String({ format: 'date-time', ...options });
}
