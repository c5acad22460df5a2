/**
 * The validators of what a start checks, the site configuration and each plugin's options: the
 * build's precompiled one when the schema is one it knows (ajv's code generation is ~70 ms of a cold
 * start), else compiled now. A schema that changed since the build has another digest, so it is
 * compiled: a precompiled validator never checks against a schema other than its own.
 */
import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { PRECOMPILED } from './precompiled-validators.js';
import { startupValidator } from './validator.js';

/** What a precompiled validator is filed under: the digest of its schema's JSON. */
export function schemaDigest(schema: object): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('base64url');
}

/** The validator of a schema a start checks. */
export function startValidator<T = unknown>(schema: object): ValidateFunction<T> {
  const precompiled = PRECOMPILED.size > 0 ? PRECOMPILED.get(schemaDigest(schema)) : undefined;
  return (precompiled as ValidateFunction<T> | undefined) ?? startupValidator().compile<T>(schema);
}
