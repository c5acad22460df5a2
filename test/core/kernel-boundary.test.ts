/**
 * The kernel knows plugins, not features: nothing under core/ imports a plugin's code or types,
 * and the kernel recognises its errors by shape, so an error of another copy of the package (a
 * plugin's own) is recognised as well.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestGateway } from '../helpers/gateway-harness.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const sources = (dir: string) =>
  (readdirSync(join(ROOT, dir), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(ROOT, dir, f));

test('no file of the kernel imports from plugins/, so the kernel compiles without any plugin', () => {
  const offending: string[] = [];
  for (const file of sources('core')) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      const target = specifier!.startsWith('.') ? relative(ROOT, resolve(file, '..', specifier!)) : specifier!;
      if (target.startsWith('plugins/') || target.startsWith('amt-gateway/')) offending.push(`${relative(ROOT, file)} -> ${specifier}`);
    }
  }
  assert.deepEqual(offending, []);
});

test('the deprecated compat/ layer is an entry point only: nothing in core/, plugins/ or workers/ imports it', () => {
  const offending: string[] = [];
  for (const file of ['core', 'plugins', 'workers'].flatMap(sources)) {
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      const target = specifier!.startsWith('.') ? relative(ROOT, resolve(file, '..', specifier!)) : specifier!;
      if (target.startsWith('compat/') || target === 'amt-gateway/plugin-api') offending.push(`${relative(ROOT, file)} -> ${specifier}`);
    }
  }
  assert.deepEqual(offending, []);
});

test('the kernel tests no value for being an instance of a class of this package', () => {
  const ours = new Set<string>();
  for (const dir of ['core', 'plugins', 'workers']) for (const file of sources(dir)) for (const [, name] of readFileSync(file, 'utf8').matchAll(/\bclass\s+([A-Z][A-Za-z0-9]*)/g)) ours.add(name!);
  const offending = sources('core').flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/instanceof\s+([A-Za-z0-9_]+)/g)].filter(([, name]) => ours.has(name!)).map(([match]) => `${relative(ROOT, file)}: ${match}`),
  );
  assert.deepEqual(offending, []);
});

test("a configuration error a plugin throws with its own copy of ConfigError stops start-up as that error, not as a registration failure", async () => {
  const path = fileURLToPath(new URL('../fixtures/plugins/ordering/foreign-config-error.ts', import.meta.url));
  await assert.rejects(startTestGateway({ overrides: { plugins: { 'foreign-config-error': { enable: true, path } } } }), {
    code: 'GW_ERR_CONFIG',
    message: 'invalid configuration: plugins.foreign-config-error.options.colour is required',
  });
});
