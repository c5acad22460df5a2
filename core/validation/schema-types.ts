/**
 * TypeBox helpers for schemas that keep the JSON Schema shape the OpenAPI document has always
 * shown: an `enum` of strings (TypeBox's own union would be an `anyOf` of `const`s), and a `$ref`
 * to a component schema, each typed like the schema they stand for.
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

/** `{ $ref: '#/components/schemas/<name>' }`, typed as `schema` (which the plugin adds with `ctx.openapi.addSchema(name, schema)`). */
export function ComponentRef<S extends TSchema>(name: string, schema: S): TUnsafe<Static<S>> {
  void schema;
  return Type.Unsafe<Static<S>>({ $ref: `#/components/schemas/${name}` });
}

/** A section of a plugin's options: an object of its own fields, no others, `{}` when left out (so its defaults apply). */
export function Section<P extends TProperties>(properties: P): TObject<P> {
  return Type.Object(properties, { additionalProperties: false, default: {} });
}
