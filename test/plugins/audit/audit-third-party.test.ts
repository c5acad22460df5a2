/**
 * A third-party plugin records through the `audit` service it names as an optional dependency: it
 * is registered after audit whatever the names, its record is stored with secrets redacted, it runs
 * unchanged with the trail switched off, and reaching for the service undeclared stops start-up.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { readAudit } from './audit-kit.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const recorder = { 'aaa-recorder': { enable: true, path: FIXTURES + 'aaa-recorder.ts' } };
const SECRET = 'widget-secret-value-42';

test('a third-party plugin records its own action, secrets redacted', async () => {
  const gw = await startTestGateway({ plugins: ['audit'], overrides: { plugins: recorder } });
  try {
    assert.ok(gw.gateway.plugins.indexOf('audit') < gw.gateway.plugins.indexOf('aaa-recorder'));
    const admin = await gw.login();
    const res = await gw.request('POST', '/api/aaa-recorder/widgets', { token: admin, body: { name: 'w1', secret: SECRET } });
    assert.equal(res.status, 201);
    assert.deepEqual(await res.json(), { name: 'w1', audited: true });
    const { records, raw } = await readAudit(gw, admin, { action: 'widget.create' });
    assert.equal(records.length, 1);
    assert.deepEqual(records[0]!.detail, { name: 'w1', secret: '[redacted]', nested: { apiToken: '[redacted]' } });
    assert.equal(records[0]!.target, 'w1');
    assert.ok(!raw.includes(SECRET));
  } finally {
    await gw.cleanup();
  }
});

test('with the trail off the plugin runs unrecorded', async () => {
  const gw = await startTestGateway({ overrides: { plugins: recorder } });
  try {
    const res = await gw.request('POST', '/api/aaa-recorder/widgets', { token: await gw.login(), body: { name: 'w2', secret: SECRET } });
    assert.deepEqual(await res.json(), { name: 'w2', audited: false });
  } finally {
    await gw.cleanup();
  }
});

test('reaching for the audit service without declaring it stops start-up, naming both plugins', async () => {
  await assert.rejects(startTestGateway({ plugins: ['audit'], overrides: { plugins: { 'undeclared-recorder': { enable: true, path: FIXTURES + 'undeclared-recorder.ts' } } } }), {
    code: 'GW_ERR_SERVICE_UNDECLARED',
    message: /plugin 'undeclared-recorder' uses service 'audit' of plugin 'audit' without declaring it/,
  });
});
