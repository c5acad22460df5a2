// The build's precompiled validators (core/validation/precompiled-validators.ts): ajv standalone code
// for the schemas every start checks, the configuration's and each built-in plugin's options, filed
// by schema digest. `node --import tsx scripts/precompile-validators.ts FILE` writes the module that
// scripts/build.mjs bundles in place of the empty one; test/core/precompiled-validators.test.ts runs
// the same code and compares each validator with one compiled at run time.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { GATEWAY_CONFIG_SCHEMA } from '../core/config/gateway-config.js';
import { builtInPluginNames, loadPlugin } from '../core/plugins/plugin-loader.js';
import { schemaDigest } from '../core/validation/start-validators.js';
import { STARTUP_VALIDATION, createAjv } from '../core/validation/validator.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The schemas a start of the gateway checks: the configuration's and each built-in plugin's options. */
export async function startSchemas(): Promise<object[]> {
  const schemas: object[] = [GATEWAY_CONFIG_SCHEMA];
  for (const name of builtInPluginNames()) {
    const def = await loadPlugin(name, { enable: true }, ROOT);
    if (def.configSchema) schemas.push(def.configSchema as object);
  }
  return schemas;
}

/**
 * An ES module exporting `PRECOMPILED`, a map from schema digest to validator, compiled with the
 * options of the start's own validator. `requireFrom` is where ajv's runtime helpers are resolved
 * from (default: the module's own location).
 */
export function precompiledModule(schemas: object[], requireFrom?: string): string {
  const ajv = createAjv({ ...STARTUP_VALIDATION, standaloneSource: true });
  const exportsByName: Record<string, string> = {};
  const digests = new Map<string, string>();
  for (const schema of schemas) {
    const digest = schemaDigest(schema);
    if ([...digests.values()].includes(digest)) continue;
    const name = `validator${digests.size}`;
    ajv.addSchema(schema, name);
    exportsByName[name] = name;
    digests.set(name, digest);
  }
  const code = (standaloneCode as unknown as (ajv: unknown, refs: Record<string, string>) => string)(ajv, exportsByName);
  const from = requireFrom === undefined ? 'import.meta.url' : JSON.stringify(requireFrom);
  return [
    "import { createRequire } from 'node:module';",
    `const require = createRequire(${from});`,
    code.replace(/^"use strict";/, ''),
    `export const PRECOMPILED = new Map([${[...digests].map(([name, digest]) => `[${JSON.stringify(digest)}, ${name}]`).join(', ')}]);`,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: node --import tsx scripts/precompile-validators.ts FILE');
  writeFileSync(out, precompiledModule(await startSchemas()));
}
