import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../../core/config/load-config.js';
import { createAjv, startupValidator } from '../../core/validation/validator.js';
import { precompiledModule, startSchemas } from '../../scripts/precompile-validators.js';
import { startTestGateway } from '../helpers/gateway-harness.js';

test('the configuration schema and every built-in plugin options schema are valid JSON Schema 2020-12 (a start trusts them unchecked)', async () => {
  const meta = createAjv();
  const schemas = await startSchemas();
  assert.ok(schemas.length > 5, 'the configuration and the plugins with options');
  for (const schema of schemas) assert.equal(meta.validateSchema(schema), true, `${JSON.stringify(meta.errors)} in ${JSON.stringify(schema).slice(0, 120)}`);
});

test('a third-party plugin whose options schema is not valid JSON Schema stops the start, naming it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-bad-schema-'));
  try {
    await writeFile(
      join(dir, 'index.mjs'),
      "export default { name: 'bad-schema', version: '1.0.0', kernel: '1', configSchema: { type: 'object', properties: { port: { type: 'integer', minimum: 'one' } } }, register() {} };\n",
    );
    await assert.rejects(startTestGateway({ overrides: { plugins: { 'bad-schema': { enable: true, path: dir } } } }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_PLUGIN_SCHEMA');
      assert.match(err.message, /plugin 'bad-schema' declares an invalid configSchema: .*minimum/);
      return true;
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** A configuration, a plugin's options, and what must hold of each: what both kinds of validator are given. */
const SAMPLES: unknown[] = [
  {},
  { port: 'x', extra: true },
  { intervalSeconds: 0, concurrency: -1, nested: { deeper: [1, 'a', null] } },
  [],
  null,
];

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

test("the build's precompiled validators judge, report and fill defaults as the validators a start compiles would", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-precompiled-'));
  try {
    const schemas = await startSchemas();
    const file = join(dir, 'precompiled.mjs');
    await writeFile(file, precompiledModule(schemas, pathToFileURL(join(process.cwd(), 'package.json')).href));
    const { PRECOMPILED } = (await import(pathToFileURL(file).href)) as { PRECOMPILED: Map<string, (data: unknown) => boolean> & Map<string, { errors?: unknown }> };
    assert.equal(PRECOMPILED.size, schemas.length);
    const { schemaDigest } = await import('../../core/validation/start-validators.js');
    const runtime = startupValidator();
    const config = structuredClone(loadConfig({ env: {} })) as unknown;
    for (const schema of schemas) {
      const precompiled = PRECOMPILED.get(schemaDigest(schema)) as ((data: unknown) => boolean) & { errors?: unknown };
      assert.ok(precompiled, 'filed under its schema digest');
      const compiled = runtime.compile(schema);
      for (const sample of [...SAMPLES, config]) {
        const [a, b] = [structuredClone(sample), structuredClone(sample)];
        assert.equal(precompiled(a), compiled(b));
        // As JSON: the errors' schemas are the same, the run-time ones TypeBox objects (with symbols).
        assert.deepEqual(asJson(precompiled.errors), asJson(compiled.errors));
        assert.deepEqual(a, b, 'the same defaults filled in');
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
