/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = { [keyword: string]: unknown };
