/**
 * Stopping a gateway in the middle of a burst of CIRA tunnels: tunnels signing in (their device
 * looked up and adopted), tunnels coming up (presence written) and devices being read through their
 * tunnels are all under way. Shutdown goes in dependency order, so none of it writes to a closed
 * store: the log stays quiet (no warning, no error) from the stop on, and the next start clears the
 * tunnels the stop left.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet } from '../../sim/index.js';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import { until } from '../../helpers/poll.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import { ciraPort } from './gateway-cira-helpers.js';

const TUNNELS = 1000;
const MPS = { username: 'mps-stop', password: 'Mps-P@ssw0rd-stop' };
const PLUGINS = ['rest-api', 'cira', 'remote-monitor', 'power-mgmt', 'redirection'];
const overrides = mergeConfig(SIM_AMT_SETTINGS, { plugins: { cira: { enable: true, options: { port: 0 } } } });

test(`a stop during a burst of ${TUNNELS} CIRA tunnels writes nothing to the closed store and logs no warning`, { timeout: 180_000 }, async () => {
  const logs: string[] = [];
  const gw = await startTestGateway({ plugins: PLUGINS, logs, overrides });
  const token = await gw.login();
  await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  assert.equal((await gw.request('POST', '/api/cira/accounts', { token, body: MPS })).status, 201);
  const ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
  // All dial at once, as after a network outage: the stop comes while tunnels are signing in,
  // coming up and being read, with a backlog of each.
  const fleet = await startFleet({ count: TUNNELS, base: '127.71.0.1', rmcpPort: 0, seed: 'cira-stop', cira: { host: '127.0.0.1', port: ciraPort(logs), ...MPS, ca, keepAliveSeconds: 30, reconnectMs: 0 } });
  try {
    const ups = () => logs.filter((l) => l.includes('"msg":"cira tunnel up"')).length;
    await until('two fifths of the tunnels are up', () => ups() >= TUNNELS * 0.4, 120_000);
    const from = logs.length;
    await gw.stop();
    const noisy = logs.slice(from).filter((l) => /"level":"(warn|error)"/.test(l) || l.includes('Database is not open'));
    assert.deepEqual(noisy, [], `${noisy.length} warnings or errors after the stop`);
    assert.ok(ups() < TUNNELS, 'the stop came during the burst');

    // The next start on the same store: no device is left connected over CIRA.
    const again = await startTestGateway({ plugins: PLUGINS, dataDir: gw.dataDir, masterKey: gw.masterKey, overrides: { ...overrides, plugins: { cira: { enable: true, options: { port: 0 } } } } });
    try {
      const adminToken = await again.login();
      const devices = (await (await again.request('GET', '/api/devices', { token: adminToken })).json()) as Device[];
      assert.ok(devices.length > 0, 'the tunnels that came up left their devices');
      await until('no device is still marked connected over CIRA', async () => {
        const list = (await (await again.request('GET', '/api/devices', { token: adminToken })).json()) as Device[];
        return list.every((d) => !d.connections?.includes('cira'));
      });
    } finally {
      await again.stop();
    }
  } finally {
    await fleet.stop();
    await gw.cleanup();
  }
});
