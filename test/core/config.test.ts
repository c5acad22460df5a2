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
  assert.equal(config.plugins['rest-api']?.enable, true);
});

test('a site file chosen by AMTGW_CONFIG overrides the defaults, and the environment overrides both', async () => {
  const file = await siteFile(JSON.stringify({ server: { port: 9000 }, cors: { origins: ['https://ui.example'] } }));
  const config = loadConfig({
    env: { AMTGW_CONFIG: file, AMTGW_PORT: '9100', AMTGW_LOG_LEVEL: 'warn' },
  });
  assert.equal(config.server.port, 9100);
  assert.deepEqual(config.cors.origins, ['https://ui.example']);
  assert.equal(config.plugins['soap-mps']?.enable, true);
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

test('a top-level section that neither the kernel nor an enabled plugin reads stops start-up, naming it', async () => {
  const { startTestGateway } = await import('../helpers/gateway-harness.js');
  await assert.rejects(startTestGateway({ overrides: { amtt: { allowedNetworks: [] } } }), {
    code: 'GW_ERR_CONFIG',
    message: 'invalid configuration: amtt is not an allowed property (neither the kernel nor an enabled plugin reads it)',
  });
  // `amt` belongs to the devices plugin: without it enabled, nobody reads it.
  await assert.rejects(startTestGateway({ overrides: { amt: { allowedNetworks: [] } } }), { code: 'GW_ERR_CONFIG', message: /amt is not an allowed property/ });
});
