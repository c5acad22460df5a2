import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet } from '../../sim/fleet.js';
import type { SimDevice } from '../../sim/sim-device.js';
import { startTestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, startScan, waitForScan } from '../../helpers/scan-helpers.js';

interface DeviceView {
  ipAddress: string;
  authStatus: string;
  firmwareVersion: string | null;
  hostname: string | null;
  tlsFingerprint: string | null;
}

interface WsmanView {
  reachable: boolean;
  authenticated: boolean;
  hostname: string | null;
  error?: string;
}

test('legacy TLS off: a TLS 1.1-only device is stored with the cause and its firmware version; on: it is read, and logged once', async () => {
  const fleet = await startFleet({ count: 1, base: '127.114.10.1', rmcpPort: 0, tlsEvery: 1, tlsMaxVersion: 'TLSv1.1', seed: 'legacy-rest' });
  const device = fleet.devices[0]!;
  try {
    await legacyOffThenOn(device);
  } finally {
    await fleet.stop();
  }
});

async function legacyOffThenOn(device: SimDevice): Promise<void> {
  const off = await startTestGateway({ plugins: ['rest-api'], overrides: SIM_AMT_SETTINGS });
  try {
    const token = await off.login();
    const credentialId = await createCredential(off, token, { username: 'admin', password: 'P@ssw0rd1' });
    const scan = await waitForScan(off, token, (await startScan(off, token, { range: device.address })).id);
    assert.equal(scan.found, 1);
    const [stored] = (await (await off.request('GET', '/api/devices', { token })).json()) as DeviceView[];
    assert.equal(stored!.authStatus, 'error');
    assert.equal(stored!.firmwareVersion, device.config.firmwareVersion, 'what the device tells without credentials is kept');
    const check = (await (await off.request('GET', `/api/test/test-wsman/${device.address}?credentialId=${credentialId}`, { token })).json()) as WsmanView;
    assert.equal(check.reachable, true);
    assert.equal(check.authenticated, false);
    assert.match(check.error ?? '', /the device offers only TLS 1\.1; enable the devices plugin's legacyTls/);
    assert.equal(device.lockedOut, false);
  } finally {
    await off.cleanup();
  }
  const logs: string[] = [];
  const on = await startTestGateway({ plugins: ['rest-api'], overrides: SIM_AMT_SETTINGS, env: { AMTGW_LEGACY_TLS: '1' }, logs });
  try {
    const token = await on.login();
    const credentialId = await createCredential(on, token, { username: 'admin', password: 'P@ssw0rd1' });
    for (let i = 0; i < 2; i++) await waitForScan(on, token, (await startScan(on, token, { range: device.address })).id);
    const [stored] = (await (await on.request('GET', '/api/devices', { token })).json()) as DeviceView[];
    assert.equal(stored!.authStatus, 'ok');
    assert.equal(stored!.hostname, device.config.hostname);
    assert.equal(stored!.tlsFingerprint, device.certificateFingerprint);
    const check = (await (await on.request('GET', `/api/test/test-wsman/${device.address}?credentialId=${credentialId}`, { token })).json()) as WsmanView;
    assert.equal(check.authenticated, true, check.error);
    const notices = logs.filter((line) => line.includes('device reached over legacy TLS'));
    assert.equal(notices.length, 1, 'logged once per device');
    assert.match(notices[0]!, new RegExp(`"address":"${device.address.replace(/\./g, '\\.')}".*"protocol":"TLSv1\\.1"`));
  } finally {
    await on.cleanup();
  }
}
