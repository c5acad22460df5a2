/**
 * Every operator action the audit trail must hold, walked against a real gateway and a simulated
 * fleet on loopback: each leaves exactly the record it should, with the user and client address,
 * and no record (nor the JSON-lines copy) holds any password used along the way.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import { startTestGateway, ADMIN_PASSWORD, type TestGateway } from '../../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, SIM_RMCP_PORT, startScan, waitForScan } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import { RawDevice, uuidOf } from '../cira/cira-test-kit.js';
import { ciraPort } from '../cira/gateway-cira-helpers.js';
import { allRecords, type AuditRecord } from './audit-kit.js';
import { until } from '../../helpers/poll.js';
import { WebSocket } from 'ws';

const FLEET_PASSWORD = 'P@ssw0rd1';
const SECRETS = {
  wrongLogin: 'not-the-admin-password-7',
  user: 'user-first-password-1',
  userChanged: 'user-second-password-2',
  credential: FLEET_PASSWORD,
  credentialChanged: 'Changed-Cred-P@ss-3',
  spareCredential: 'Spare-Cred-P@ss-4',
  mpsAccount: 'mps-account-password-5',
  admin: ADMIN_PASSWORD,
};

let fleet: Fleet;
let gw: TestGateway;
let admin: string;
const logs: string[] = [];

before(async () => {
  fleet = await startFleet({ count: 3, base: '127.123.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'audit-walk', provisioningModes: [1] });
  gw = await startTestGateway({
    plugins: ['rest-api', 'power-mgmt', 'cira', 'redirection', 'audit'],
    logs,
    overrides: mergeConfig(SIM_AMT_SETTINGS, {
      plugins: {
        cira: { enable: true, options: { port: 0, forwardSettleMs: 20 } },
        audit: { enable: true, options: { jsonLinesFile: 'audit/trail.jsonl' } },
        'power-mgmt': { enable: true, options: { confirm: { intervalMs: 50 } } },
      },
    }),
  });
});

after(async () => {
  await gw?.cleanup();
  await fleet?.stop();
});

const json = async <T>(res: Response, status: number): Promise<T> => {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return (text ? JSON.parse(text) : undefined) as T;
};

test('every listed operator action leaves one record with who, from where, what and how it ended, and no secret anywhere', async () => {
  // Sign-in, failed and succeeded.
  await json(await gw.request('POST', '/api/auth/login', { body: { username: 'admin', password: SECRETS.wrongLogin } }), 401);
  admin = await gw.login();

  // Users and their permissions.
  await json(await gw.request('POST', '/api/users', { token: admin, body: { username: 'operator1', password: SECRETS.user, permissions: ['devices:read'] } }), 201);
  await json(await gw.request('PUT', '/api/users/operator1', { token: admin, body: { password: SECRETS.userChanged, permissions: ['devices:read', 'power:read'] } }), 200);
  await json(await gw.request('DELETE', '/api/users/operator1', { token: admin }), 204);

  // Credentials (never the password).
  const credentialId = await createCredential(gw, admin, { name: 'fleet', username: 'admin', password: SECRETS.credential, isDefault: true });
  const spareId = await createCredential(gw, admin, { name: 'spare', username: 'admin', password: SECRETS.spareCredential });
  await json(await gw.request('PUT', `/api/credentials/${spareId}`, { token: admin, body: { password: SECRETS.credentialChanged } }), 200);
  await json(await gw.request('DELETE', `/api/credentials/${spareId}`, { token: admin }), 204);

  // Scans started and cancelled.
  const scan = await waitForScan(gw, admin, (await startScan(gw, admin, { range: '127.123.0.1-3', timeoutMs: 2000 })).id);
  assert.equal(scan.status, 'completed');
  const long = await startScan(gw, admin, { range: '127.123.8.0/22', timeoutMs: 2000, concurrency: 1 });
  await json(await gw.request('POST', `/api/scan/cancel/${long.id}`, { token: admin }), 200);
  const devices = await json<Array<{ id: string; ipAddress: string; uuid?: string | null }>>(await gw.request('GET', '/api/devices', { token: admin }), 200);
  assert.equal(devices.length, 3);
  const [first, second, third] = devices.sort((a, b) => a.ipAddress.localeCompare(b.ipAddress));

  // Power actions, one and in bulk; one the device does not offer now (a failure).
  await json(await gw.request('POST', `/api/power/${first!.id}`, { token: admin, body: { action: 'off' } }), 200);
  await json(await gw.request('POST', `/api/power/${first!.id}`, { token: admin, body: { action: 'off' } }), 422);
  await json(await gw.request('POST', '/api/power/bulk', { token: admin, body: { deviceIds: [second!.id, third!.id], action: 'reset' } }), 200);

  // A boot choice: the next reset into the BIOS.
  await json(await gw.request('POST', `/api/power/${first!.id}`, { token: admin, body: { action: 'on', boot: 'bios' } }), 200);

  // The remote console: features, consent started and cancelled, a serial-over-LAN session opened and closed.
  await json(await gw.request('PUT', `/api/redirection/${second!.id}/features`, { token: admin, body: { sol: true, userConsent: 'none' } }), 200);
  await json(await gw.request('POST', `/api/redirection/${second!.id}/consent`, { token: admin }), 202);
  await json(await gw.request('DELETE', `/api/redirection/${second!.id}/consent`, { token: admin }), 204);
  const solTicket = await json<{ id: string; url: string }>(await gw.request('POST', `/api/redirection/${second!.id}/sessions`, { token: admin, body: { mode: 'sol' } }), 201);
  const sol = new WebSocket(gw.url.replace(/^http/, 'ws') + solTicket.url);
  await new Promise((resolve, reject) => sol.once('open', resolve).once('error', reject));
  await new Promise((resolve) => {
    sol.once('close', resolve);
    sol.close();
  });
  await until('the session end recorded', async () => (await allRecords(gw, admin)).find((r) => r.action === 'remote.session.end'));

  // Sign-in and trust resets; a device deleted.
  await json(await gw.request('DELETE', `/api/devices/${second!.id}/sign-in`, { token: admin }), 200);
  await json(await gw.request('DELETE', `/api/devices/${second!.id}/tls-pin`, { token: admin }), 200);
  await json(await gw.request('DELETE', `/api/devices/${third!.id}`, { token: admin }), 204);

  // CIRA accounts and a dropped tunnel.
  const account = await json<{ id: string }>(await gw.request('POST', '/api/cira/accounts', { token: admin, body: { username: 'mps-audit', password: SECRETS.mpsAccount } }), 201);
  const device = await RawDevice.connect(ciraPort(logs), '127.0.23.9');
  await device.handshake(uuidOf(911), [16993, 16992], 'mps-audit', SECRETS.mpsAccount);
  const tunnel = await until('the tunnel listed', async () => ((await (await gw.request('GET', '/api/cira/connections', { token: admin })).json()) as Array<{ deviceId: string }>)[0]);
  await json(await gw.request('DELETE', `/api/cira/connections/${tunnel.deviceId}`, { token: admin }), 204);
  await device.closed;
  // CIRA device identity: an account limited to UUIDs, a UUID rebound, an unverified tunnel accepted.
  await json(await gw.request('PATCH', `/api/cira/accounts/${account.id}`, { token: admin, body: { uuids: [uuidOf(911), first!.uuid!] } }), 200);
  await json(await gw.request('PUT', `/api/cira/bindings/${uuidOf(911)}`, { token: admin, body: { accountId: account.id } }), 200);
  const claimant = await RawDevice.connect(ciraPort(logs), '127.0.23.10');
  await claimant.handshake(first!.uuid!, [16992], 'mps-audit', SECRETS.mpsAccount);
  const unverified = await until('the tunnel of the LAN-known device listed unverified', async () =>
    ((await (await gw.request('GET', '/api/cira/connections', { token: admin })).json()) as Array<{ deviceId: string; identity: string }>).find((c) => c.identity === 'unverified'),
  );
  await json(await gw.request('POST', `/api/cira/connections/${unverified.deviceId}/accept`, { token: admin }), 200);
  claimant.destroy();
  await json(await gw.request('DELETE', `/api/cira/accounts/${account.id}`, { token: admin }), 204);

  const records = await allRecords(gw, admin);
  const find = (action: string, target: string | null, outcome = 'success') => {
    const hits = records.filter((r) => r.action === action && r.target === target && r.outcome === outcome);
    assert.equal(hits.length, 1, `one ${outcome} ${action} on ${target}: ${JSON.stringify(records.map((r) => [r.action, r.target, r.outcome]))}`);
    return hits[0]!;
  };
  const signInFailed = find('auth.sign-in', 'admin', 'failure');
  assert.equal(signInFailed.address, '127.0.0.1');
  assert.equal(signInFailed.user, 'admin');
  find('auth.sign-in', 'admin');
  assert.deepEqual(find('user.create', 'operator1').detail, { permissions: ['devices:read'], passwordChanged: true });
  assert.deepEqual(find('user.update', 'operator1').detail, { permissions: ['devices:read', 'power:read'], passwordChanged: true });
  find('user.delete', 'operator1');
  find('credential.create', credentialId);
  find('credential.create', spareId);
  assert.deepEqual(find('credential.update', spareId).detail['changed'], ['password']);
  find('credential.delete', spareId);
  assert.equal(find('scan.start', '127.123.0.1-3').detail['scanId'], scan.id);
  find('scan.start', '127.123.8.0/22');
  find('scan.cancel', long.id);
  assert.equal(records.filter((r) => r.action === 'power.change' && r.target === first!.id && r.outcome === 'success' && r.detail['action'] === 'off').length, 1);
  assert.equal(records.filter((r) => r.action === 'power.change' && r.target === first!.id && r.detail['boot'] === 'bios').length, 1, 'the boot choice recorded');
  assert.deepEqual(find('remote.features', second!.id).detail, { sol: true, userConsent: 'none' });
  find('remote.consent.start', second!.id);
  find('remote.consent.cancel', second!.id);
  assert.equal(find('remote.session.start', second!.id).detail['sessionId'], solTicket.id);
  assert.equal(find('remote.session.end', second!.id).detail['mode'], 'sol');
  assert.equal(find('power.change', first!.id, 'failure').detail['error'], 'GW_ERR_POWER_ACTION_UNSUPPORTED');
  assert.equal(find('power.change', second!.id).detail['bulk'], true);
  find('power.change', third!.id);
  find('device.sign-in-reset', second!.id);
  find('device.trust-reset', second!.id);
  assert.equal(find('device.delete', third!.id).detail['ipAddress'], third!.ipAddress);
  assert.equal(find('cira.account.create', account.id).detail['username'], 'mps-audit');
  assert.equal(find('cira.tunnel.drop', tunnel.deviceId).detail['remoteAddress'], '127.0.23.9');
  find('cira.account.delete', account.id);
  assert.deepEqual(find('cira.account.update', account.id).detail['uuids'], [uuidOf(911), first!.uuid]);
  assert.equal(find('cira.binding.rebind', uuidOf(911)).detail['accountId'], account.id);
  assert.equal(find('cira.tunnel.accept', unverified.deviceId).detail['remoteAddress'], '127.0.23.10');

  for (const record of records.filter((r) => r.action !== 'auth.sign-in')) {
    assert.equal(record.user, 'admin', `${record.action} names who did it`);
    assert.equal(record.address, '127.0.0.1', `${record.action} names the client address`);
    assert.ok(!Number.isNaN(Date.parse(record.at)));
  }
  const operator = records.filter((r) => r.class === 'operator');
  assert.deepEqual(operator.map((r) => Number(r.id)), operator.map((r) => Number(r.id)).sort((a, b) => b - a), 'newest first, ids increasing with time');

  // The failed sign-in's aggregated record reaches the file when its window closes; the operator records at once.
  const jsonLines = await readFile(join(gw.dataDir, 'audit/trail.jsonl'), 'utf8');
  const lines = jsonLines.trim().split('\n').map((l) => JSON.parse(l) as AuditRecord);
  assert.deepEqual(lines.map((l) => l.id).reverse(), operator.map((r) => r.id), 'the JSON-lines file holds the same records in write order');
  for (const [name, secret] of Object.entries(SECRETS)) {
    assert.ok(!JSON.stringify(records).includes(secret), `no record holds the ${name} password`);
    assert.ok(!jsonLines.includes(secret), `the JSON-lines file does not hold the ${name} password`);
  }
});
