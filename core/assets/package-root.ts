/**
 * Where the gateway's own files are: the package root (the folder with its package.json) holds
 * `config/`, `schemas/` and `package.json` whether the code runs from the checkout through tsx
 * (`core/assets/package-root.ts`), compiled (`dist/core/assets/package-root.js`) or installed
 * (`node_modules/amt-gateway/dist/...`); the code root holds `core/`, `compat/`, `plugins/` and `workers/`
 * (the package root, or its `dist/`). Every asset and code path goes through here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(import.meta.url);
const MAX_LEVELS = 5;

function findRoot(): string {
  let dir = dirname(HERE);
  for (let level = 0; level < MAX_LEVELS; level++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'config', 'default.json'))) return dir.endsWith(sep) ? dir : dir + sep;
    dir = dirname(dir);
  }
  throw new Error(`amt-gateway: package root not found above ${HERE}`);
}

/** The package root, with a trailing separator. */
export const PACKAGE_ROOT = findRoot();

/** The folder holding `core/`, `plugins/`, `workers/` as this code runs: the package root, or its `dist/`. */
export const CODE_ROOT = HERE.startsWith(join(PACKAGE_ROOT, 'dist') + sep) ? join(PACKAGE_ROOT, 'dist') + sep : PACKAGE_ROOT;

/** The extension the gateway's code runs as: `.ts` under tsx, `.js` compiled. */
export const CODE_EXTENSION = HERE.endsWith('.ts') ? '.ts' : '.js';

/** An absolute path inside the code root, e.g. `codePath('workers', 'tasks')`. */
export function codePath(...segments: string[]): string {
  return join(CODE_ROOT, ...segments);
}

/** An absolute path inside the package, e.g. `packagePath('schemas', 'config.schema.json')`. */
export function packagePath(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}

/** The version in the package's package.json. */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;

const requireHere = createRequire(import.meta.url);

/** The folder of an installed dependency (e.g. `swagger-ui-dist`), resolved from this package. */
export function dependencyDir(name: string): string {
  return dirname(requireHere.resolve(`${name}/package.json`));
}
