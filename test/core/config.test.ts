import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../core/config/load-config.js';

const siteFile = async (content: string) => {
  const dir = await mkdtemp(join(tmpdir(), 'amtgw-config-'));
  const file = join(dir, 'site.json');
  await writeFile(file, content);
  return file;
};

test('defaults load and validate', () => {
  const config = loadConfig({ env: {} });
  assert.equal(config.server.port, 8080);
  assert.equal(config.server.host, '127.0.0.1');
  assert.deepEqual(config.amt.ports, { http: 16992, https: 16993, rmcp: 623 });
  assert.equal(config.plugins['rest-api']?.enable, true);
});

test('a site file chosen by AMTGW_CONFIG overrides the defaults, and the environment overrides both', async () => {
  const file = await siteFile(JSON.stringify({ server: { port: 9000 }, cors: { origins: ['https://ui.example'] } }));
  const config = loadConfig({
    env: { AMTGW_CONFIG: file, AMTGW_PORT: '9100', AMTGW_ALLOWED_NETWORKS: '127.0.0.0/8, 10.1.0.0/16', AMTGW_LOG_LEVEL: 'warn' },
  });
  assert.equal(config.server.port, 9100);
  assert.deepEqual(config.cors.origins, ['https://ui.example']);
  assert.equal(config.plugins['soap-mps']?.enable, true);
  assert.deepEqual(config.amt.allowedNetworks, ['127.0.0.0/8', '10.1.0.0/16']);
  assert.equal(config.log.level, 'warn');
});

test('an invalid value stops start-up with a message naming the field and the reason', async () => {
  assert.throws(() => loadConfig({ env: { AMTGW_PORT: 'eighty' } }), { code: 'GW_ERR_CONFIG', message: /server\.port must be integer/ });
  assert.throws(() => loadConfig({ env: {}, overrides: { log: { level: 'loud' } } }), { message: /log\.level must be one of "debug", "info"/ });
  assert.throws(() => loadConfig({ env: {}, overrides: { server: { colour: 'blue' } } }), { message: /server\.colour is not an allowed property/ });
  assert.throws(() => loadConfig({ env: { AMTGW_TLS_CERT: '/tmp/cert.pem' } }), { message: /server\.tls needs both cert and key/ });
});

test('a site file that is not JSON is named in the error', async () => {
  const file = await siteFile('{ "server": ');
  assert.throws(() => loadConfig({ file, env: {} }), { code: 'GW_ERR_CONFIG', message: new RegExp(`site configuration ${file} is not valid JSON`) });
  assert.throws(() => loadConfig({ file: '/nonexistent/site.json', env: {} }), { message: /cannot read site configuration \/nonexistent\/site.json: ENOENT/ });
});

test('an unreadable CA bundle for devices stops start-up naming amt.caFile', async () => {
  const { startTestGateway } = await import('../helpers/gateway-harness.js');
  await assert.rejects(startTestGateway({ overrides: { amt: { tlsTrust: 'ca', caFile: '/nonexistent/device-ca.pem' } } }), {
    code: 'GW_ERR_CONFIG',
    message: /amt\.caFile \/nonexistent\/device-ca\.pem cannot be read \(ENOENT\)/,
  });
});

test('AMTGW_LEGACY_TLS switches amt.legacyTls, off by default; a value that is not a flag names the field', () => {
  assert.equal(loadConfig({ env: {} }).amt.legacyTls, false);
  assert.equal(loadConfig({ env: { AMTGW_LEGACY_TLS: '1' } }).amt.legacyTls, true);
  assert.equal(loadConfig({ env: { AMTGW_LEGACY_TLS: '0' }, overrides: { amt: { legacyTls: true } } }).amt.legacyTls, false);
  assert.throws(() => loadConfig({ env: { AMTGW_LEGACY_TLS: 'yes' } }), { code: 'GW_ERR_CONFIG', message: /amt\.legacyTls must be boolean/ });
});
