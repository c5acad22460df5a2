/**
 * Where the gateway's own files are: the package root (the folder with its package.json) holds
 * `config/`, `schemas/` and `package.json` whether the code runs from the checkout through tsx
 * (`core/assets/package-root.ts`), compiled (`dist/core/assets/package-root.js`) or installed
 * (`node_modules/amt-gateway/dist/...`). Every asset path goes through here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// This file is two folders below the root in the checkout, three once compiled into dist/.
const CANDIDATES = ['../../', '../../../'].map((up) => fileURLToPath(new URL(up, import.meta.url)));

function findRoot(): string {
  const root = CANDIDATES.find((dir) => existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'config', 'default.json')));
  if (!root) throw new Error(`amt-gateway: package root not found above ${fileURLToPath(import.meta.url)}`);
  return root;
}

/** The package root, with a trailing separator. */
export const PACKAGE_ROOT = findRoot();

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
