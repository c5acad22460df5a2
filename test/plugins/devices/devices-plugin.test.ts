/**
 * The devices plugin as a site meets it: a configuration that lists only `rest-api` still starts
 * (its built-in dependency `devices` is enabled with it), rest-api's earlier `signIn` options still
 * apply, and ways of reaching devices are registered with the gate once per kind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startFleet } from '../../sim/fleet.js';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import type { Device } from '../../../plugins/devices/api.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/plugins/gate-users/', import.meta.url));

test('a site that enables only rest-api gets the devices plugin with it, its device routes and its data', async () => {
  const logs: string[] = [];
  const gw = await startTestGateway({ plugins: ['rest-api'], logs });
  try {
    assert.deepEqual([...gw.gateway.plugins].sort(), ['devices', 'rest-api']);
    assert.ok(logs.some((l) => l.includes('enabled implicitly') && l.includes('"requiredBy":"rest-api"')), 'the implicit enabling is logged');
    const token = await gw.login();
    assert.equal((await gw.request('GET', '/api/devices', { token })).status, 200);
    assert.equal((await gw.request('GET', '/api/credentials', { token })).status, 200);
  } finally {
    await gw.cleanup();
  }
});

test("rest-api's earlier signIn options still set the devices plugin's sign-in memory", async () => {
  const fleet = await startFleet({ count: 1, base: '127.36.1.1', rmcpPort: SIM_RMCP_PORT, seed: 'deprecated-options' });
  const logs: string[] = [];
  const gw = await startTestGateway({ plugins: ['rest-api'], logs, overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { 'rest-api': { options: { signIn: { lockoutThreshold: 6, safetyMargin: 1 } } } } }) });
  try {
    const token = await gw.login();
    await createCredential(gw, token, { username: 'admin', password: 'P@ssw0rd1', isDefault: true });
    assert.equal((await waitForScan(gw, token, (await startScan(gw, token, { range: '127.36.1.1', timeoutMs: 2000 })).id)).found, 1);
    const [device] = (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];
    const view = (await (await gw.request('GET', `/api/devices/${device!.id}/sign-in`, { token })).json()) as { budget: number };
    assert.equal(view.budget, 5, 'lockoutThreshold 6 less safetyMargin 1');
    assert.ok(logs.some((l) => l.includes('plugins.rest-api.options signIn are deprecated')), 'the deprecation is logged');
  } finally {
    await gw.cleanup();
    await fleet.stop();
  }
});

test('a second device path of one kind stops start-up naming both plugins', async () => {
  await assert.rejects(
    startTestGateway({
      plugins: ['rest-api', 'cira'],
      overrides: { plugins: { cira: { enable: true, options: { port: 0 } }, 'path-copy': { enable: true, path: FIXTURES + 'path-copy.ts' } } },
    }),
    (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_PLUGIN_REGISTER');
      assert.match(err.message, /device path 'cira' of plugin 'path-copy' clashes with the one plugin 'cira' registered/);
      return true;
    },
  );
});

test('the CIRA plugin reaches devices through the gate\'s extension point, not by writing into another service', async () => {
  const gw = await startTestGateway({
    plugins: ['rest-api', 'cira'],
    overrides: { plugins: { cira: { enable: true, options: { port: 0 } }, 'gate-reader': { enable: true, path: FIXTURES + 'gate-reader.ts' } } },
  });
  try {
    const token = await gw.login();
    const res = await gw.request('POST', '/api/gate-reader/unknown', { token });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { problem: 'unknown device', kinds: ['cira', 'lan'] });
  } finally {
    await gw.cleanup();
  }
});
