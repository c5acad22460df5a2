/**
 * Only a well-formed WS-Management answer proves a sign-in: a device that completes Digest and then
 * answers 200 with a page that is not a SOAP envelope is stored as `error` with the reason, its
 * credential is not recorded as working, and the firmware version its `Server` header told is kept.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import type { Device } from '../../../plugins/devices/api.js';

let fleet: Fleet;
let gw: TestGateway;
let token: string;

before(async () => {
  fleet = await startFleet({ count: 1, base: '127.0.14.1', rmcpPort: SIM_RMCP_PORT, seed: 'not-soap' });
  gw = await startTestGateway({ plugins: ['rest-api'], overrides: SIM_AMT_SETTINGS });
  token = await gw.login();
  await createCredential(gw, token, { username: 'admin', password: 'P@ssw0rd1', isDefault: true });
});

after(async () => {
  await gw?.cleanup();
  await fleet?.stop();
});

const device = async (): Promise<Device> => ((await (await gw.request('GET', '/api/devices', { token })).json()) as Device[])[0]!;

test('a device that answers a signed request with a non-SOAP 200 is stored as error, not ok, with its Server header version', async () => {
  const sim = fleet.devices[0]!;
  sim.setMisbehaviour('not-soap');
  await waitForScan(gw, token, (await startScan(gw, token, { range: '127.0.14.1', timeoutMs: 2000 })).id);
  const stored = await device();
  assert.equal(stored.authStatus, 'error');
  assert.equal(stored.credentialId, null);
  assert.equal(stored.firmwareVersion, sim.config.firmwareVersion);

  const check = (await (await gw.request('GET', '/api/test/test-wsman/127.0.14.1', { token })).json()) as { authenticated: boolean; error?: string };
  assert.equal(check.authenticated, false);
  assert.match(check.error ?? '', /not a SOAP envelope/);
  const signIn = (await (await gw.request('GET', `/api/devices/${stored.id}/sign-in`, { token })).json()) as { workingCredentialId: string | null };
  assert.equal(signIn.workingCredentialId, null);

  sim.setMisbehaviour('none');
  await waitForScan(gw, token, (await startScan(gw, token, { range: '127.0.14.1', timeoutMs: 2000 })).id);
  const fixed = await device();
  assert.equal(fixed.authStatus, 'ok');
  assert.ok(fixed.credentialId);
});
