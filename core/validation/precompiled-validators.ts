/**
 * Validators compiled ahead of time, filed by schema digest (start-validators.ts): `npm run build`
 * replaces this module with the ajv standalone code of the configuration's and the built-in plugins'
 * option schemas (scripts/precompile-validators.ts). In the source tree (tsx, tests) it is empty and
 * every schema is compiled when a start needs it.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';

export const PRECOMPILED: ReadonlyMap<string, ValidateFunction> = new Map();
