/**
 * The device settings (ports, allowed networks, TLS trust) are the devices plugin's options since
 * kernel API 1.5: set there or by their variables, read by plugins from the gate. A site file of an
 * earlier release, with its top-level `amt` section, keeps working: the section is merged under the
 * plugin's options with a deprecation warning, and `ctx.site.amt` still says what it says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestGateway } from '../../helpers/gateway-harness.js';

const READER = fileURLToPath(new URL('../../fixtures/plugins/gate-users/settings-reader.ts', import.meta.url));

interface Seen {
  gate: { ports: { http: number; https: number; rmcp: number }; allowedNetworks: string[]; tlsTrust: { mode: string; legacyTls?: boolean; caPem: boolean } };
  site: { amt: { ports: { http: number; https: number; rmcp: number }; allowedNetworks: string[]; tlsTrust: string; caFile: string | null; legacyTls?: boolean }; deviceTlsMode: string };
}

async function settingsOf(options: { overrides?: Record<string, unknown>; env?: NodeJS.ProcessEnv; logs?: string[] }): Promise<Seen> {
  const gw = await startTestGateway({ ...options, plugins: ['devices'], overrides: { ...options.overrides, plugins: { ...(options.overrides?.plugins as object), 'settings-reader': { enable: true, path: READER } } } });
  try {
    const res = await gw.request('GET', '/api/settings-reader/', { token: await gw.login() });
    assert.equal(res.status, 200);
    return (await res.json()) as Seen;
  } finally {
    await gw.cleanup();
  }
}

test('the device settings default to the AMT ports, the private networks and trust on first use', async () => {
  const seen = await settingsOf({});
  assert.deepEqual(seen.gate.ports, { http: 16992, https: 16993, rmcp: 623 });
  assert.deepEqual(seen.gate.allowedNetworks, ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8']);
  assert.deepEqual(seen.gate.tlsTrust, { mode: 'tofu', caPem: false });
  assert.deepEqual(seen.site.amt, { ports: { http: 16992, https: 16993, rmcp: 623 }, allowedNetworks: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8'], tlsTrust: 'tofu', caFile: null, legacyTls: false });
});

test('plugins.devices.options set them, and AMTGW_ALLOWED_NETWORKS and AMTGW_LEGACY_TLS override the site file', async () => {
  const overrides = { plugins: { devices: { options: { ports: { rmcp: 0 }, allowedNetworks: ['10.9.0.0/16'], legacyTls: true } } } };
  const fromFile = await settingsOf({ overrides });
  assert.deepEqual(fromFile.gate.ports, { http: 16992, https: 16993, rmcp: 0 });
  assert.deepEqual(fromFile.gate.allowedNetworks, ['10.9.0.0/16']);
  assert.equal(fromFile.gate.tlsTrust.legacyTls, true);
  const fromEnv = await settingsOf({ overrides, env: { AMTGW_ALLOWED_NETWORKS: '127.0.0.0/8, 10.1.0.0/16', AMTGW_LEGACY_TLS: '0' } });
  assert.deepEqual(fromEnv.gate.allowedNetworks, ['127.0.0.0/8', '10.1.0.0/16']);
  assert.equal(fromEnv.gate.tlsTrust.legacyTls, undefined);
  assert.equal(fromEnv.site.amt.legacyTls, false);
});

test('a value that does not fit names the option, and a variable that is not a flag names it too', async () => {
  await assert.rejects(settingsOf({ overrides: { plugins: { devices: { options: { ports: { http: 0 } } } } } }), { code: 'GW_ERR_CONFIG', message: /plugins\.devices\.options\.ports\.http must be >= 1/ });
  await assert.rejects(settingsOf({ env: { AMTGW_LEGACY_TLS: 'yes' } }), { code: 'GW_ERR_CONFIG', message: /plugins\.devices\.options\.legacyTls must be boolean/ });
});

test("a site file's top-level amt section of an earlier release still applies, with a deprecation warning; what plugins.devices.options says wins", async () => {
  const logs: string[] = [];
  const seen = await settingsOf({
    logs,
    overrides: {
      amt: { ports: { http: 16992, https: 16993, rmcp: 16623 }, allowedNetworks: ['127.0.0.0/8'], tlsTrust: 'tofu', caFile: null },
      plugins: { devices: { options: { allowedNetworks: ['127.9.0.0/16'] } } },
    },
  });
  assert.deepEqual(seen.gate.ports, { http: 16992, https: 16993, rmcp: 16623 }, 'from amt');
  assert.deepEqual(seen.gate.allowedNetworks, ['127.9.0.0/16'], 'from the options, which win');
  assert.equal(seen.site.amt.ports.rmcp, 16623, 'ctx.site.amt says it too');
  assert.ok(logs.some((line) => line.includes("site section 'amt' is deprecated: set its keys under plugins.devices.options")), 'the warning names where the keys go');
});

test('an unreadable CA bundle stops start-up naming the option; a readable one is read once for device TLS', async () => {
  await assert.rejects(startTestGateway({ plugins: ['devices'], overrides: { plugins: { devices: { options: { tlsTrust: 'ca', caFile: '/nonexistent/device-ca.pem' } } } } }), {
    code: 'GW_ERR_CONFIG',
    message: /plugins\.devices\.options\.caFile \/nonexistent\/device-ca\.pem cannot be read \(ENOENT\)/,
  });
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-ca-'));
  const caFile = join(dir, 'device-ca.pem');
  await writeFile(caFile, '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n');
  const seen = await settingsOf({ overrides: { amt: { tlsTrust: 'ca', caFile } } });
  assert.deepEqual(seen.gate.tlsTrust, { mode: 'ca', caPem: true });
  assert.equal(seen.site.deviceTlsMode, 'ca');
});
