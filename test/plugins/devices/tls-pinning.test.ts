import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet } from '../../sim/fleet.js';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import type { Device } from '../../../plugins/devices/api.js';

test('a TLS device is pinned on first contact, a changed certificate is refused until the operator resets the pin', async () => {
  const fleet = await startFleet({ count: 2, base: '127.35.0.1', rmcpPort: SIM_RMCP_PORT, tlsEvery: 1, seed: 'pinning' });
  const gw = await startTestGateway({ plugins: ['rest-api'], overrides: SIM_AMT_SETTINGS });
  try {
    const token = await gw.login();
    await createCredential(gw, token, { username: 'admin', password: 'P@ssw0rd1' });
    const scanOnce = async () => {
      assert.equal((await waitForScan(gw, token, (await startScan(gw, token, { range: '127.35.0.1-2' })).id)).status, 'completed');
      const devices = (await (await gw.request('GET', '/api/devices', { token })).json()) as Device[];
      return devices.find((d) => d.ipAddress === '127.35.0.1')!;
    };
    const sim = fleet.device('127.35.0.1')!;
    const first = await scanOnce();
    assert.equal(first.authStatus, 'ok');
    assert.equal(first.tls, true);
    assert.ok(first.tlsFingerprint);
    assert.equal(first.tlsFingerprint!.replace(/:/g, '').toLowerCase(), sim.certificateFingerprint!.replace(/:/g, '').toLowerCase());

    sim.setCertificate('b');
    const refused = await scanOnce();
    assert.equal(refused.authStatus, 'error', 'a changed certificate is refused');
    assert.equal(refused.tlsFingerprint, first.tlsFingerprint, 'the pin is kept');
    assert.equal(refused.hostname, first.hostname, 'what was known stays');
    const wsman = (await (await gw.request('GET', `/api/test/test-wsman/${sim.address}`, { token })).json()) as { authenticated: boolean; error: string };
    assert.equal(wsman.authenticated, false);
    assert.match(wsman.error, /fingerprint|certificate/i);

    const reader = await gw.userWith(['devices:read']);
    assert.equal((await gw.request('DELETE', `/api/devices/${first.id}/tls-pin`, { token: reader })).status, 403);
    const reset = await gw.request('DELETE', `/api/devices/${first.id}/tls-pin`, { token });
    assert.equal(reset.status, 200);
    assert.equal(((await reset.json()) as Device).tlsFingerprint, null);
    const repinned = await scanOnce();
    assert.equal(repinned.authStatus, 'ok');
    assert.equal(repinned.tlsFingerprint!.replace(/:/g, '').toLowerCase(), sim.certificateFingerprint!.replace(/:/g, '').toLowerCase());
    assert.notEqual(repinned.tlsFingerprint, first.tlsFingerprint);
  } finally {
    await gw.cleanup();
    await fleet.stop();
  }
});
