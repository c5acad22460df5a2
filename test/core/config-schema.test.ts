import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GATEWAY_CONFIG_SCHEMA } from '../../core/config/gateway-config.js';
import { loadConfig, validateConfig } from '../../core/config/load-config.js';

test('schemas/config.schema.json, shipped for editors, says what the schema the gateway validates with says', () => {
  const shipped: unknown = JSON.parse(readFileSync(new URL('../../schemas/config.schema.json', import.meta.url), 'utf8'));
  assert.deepEqual(shipped, JSON.parse(JSON.stringify(GATEWAY_CONFIG_SCHEMA)), 'run: node --import tsx scripts/write-config-schema.ts');
});

test('every field the configuration type holds without a `?` is required by the schema (workers.idleTimeoutMs)', () => {
  const config = structuredClone(loadConfig({ env: {} })) as unknown as Record<string, Record<string, unknown>>;
  delete config.workers!.idleTimeoutMs;
  assert.throws(() => validateConfig(config), { code: 'GW_ERR_CONFIG', message: 'invalid configuration: workers.idleTimeoutMs is required' });
});
