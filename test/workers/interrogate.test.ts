/** The interrogate task: one attempt with the one credential the device gate gives, its failed-login bound, outcomes as data. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import interrogate from '../../workers/tasks/interrogate.js';
import wsmanCheck from '../../workers/tasks/wsman-check.js';
import { startFleet, type Fleet } from '../sim/index.js';
import { ADMIN, ALT_ADMIN, ALT_PASSWORD, DEFAULT_PASSWORD, directTools, FAST_TIMEOUTS, WRONG } from './helpers.js';

let fleet: Fleet;
before(async () => {
  fleet = await startFleet({ count: 8, base: '127.20.7.1', rmcpPort: 0, seed: 'interrogate', altPasswordEvery: 2, tlsEvery: 8 });
});
after(() => fleet?.stop());

const noSecrets = (value: unknown): void => {
  const text = JSON.stringify(value);
  for (const secret of [DEFAULT_PASSWORD, ALT_PASSWORD, WRONG.password]) assert.ok(!text.includes(secret), 'a password leaked into the output');
};

describe('interrogate', () => {
  it('signs in with the one credential it is given and reads the scan items', async () => {
    const device = fleet.devices[0]!;
    device.resetCounters();
    const out = await interrogate({ address: device.address, credential: ADMIN, timeouts: FAST_TIMEOUTS }, directTools());
    noSecrets(out);
    assert.equal(out.authStatus, 'ok');
    assert.equal(out.credentialId, ADMIN.id);
    assert.equal(out.attempts, 1);
    assert.equal(out.hostname, device.config.hostname);
    assert.equal(out.uuid, device.config.uuid);
    assert.equal(out.serverVersion, device.config.firmwareVersion);
    assert.equal(device.counters().authFailures, 0);
  });

  it('makes one attempt: a refused credential ends the task (the device gate chooses any other), within its maxFailedLogins', async () => {
    const device = fleet.devices[2]!;
    device.resetCounters();
    const out = await interrogate({ address: device.address, credential: { ...WRONG, maxFailedLogins: 1 }, timeouts: FAST_TIMEOUTS }, directTools());
    noSecrets(out);
    assert.equal(out.authStatus, 'unauthorized');
    assert.equal(out.attempts, 1);
    assert.deepEqual(out.refusedCredentialIds, [WRONG.id]);
    assert.equal(out.error?.code, 'AMT_ERR_UNAUTHORIZED');
    assert.equal(out.failedLogins, 1);
    assert.equal(device.counters().authFailures, 1);
    assert.equal(device.lockedOut, false);
  });

  it('has no credential loop of its own: a list of credentials in its input is not tried', async () => {
    const device = fleet.devices[2]!;
    device.resetCounters();
    // An input of the earlier task shape (credentials in order): nothing in it is taken as a credential.
    const legacy = { address: device.address, credentials: [WRONG, ADMIN], maxAttempts: 3, credential: null, timeouts: FAST_TIMEOUTS };
    const out = await interrogate(legacy as Parameters<typeof interrogate>[0], directTools());
    assert.equal(out.attempts, 0);
    assert.equal(out.credentialId, null);
    assert.equal(device.counters().authFailures, 0);
  });

  it('reports an unauthorized device with the firmware version of its Server header', async () => {
    const device = fleet.devices[1]!; // uses the alternative password
    const out = await interrogate({ address: device.address, credential: ADMIN, timeouts: FAST_TIMEOUTS }, directTools());
    assert.equal(out.authStatus, 'unauthorized');
    assert.equal(out.serverVersion, device.config.firmwareVersion);
    assert.equal(out.firmwareVersion, device.config.firmwareVersion);
    assert.equal(out.hostname, null);
  });

  it('without credentials still learns the Server header', async () => {
    const device = fleet.devices[3]!;
    device.resetCounters();
    const out = await interrogate({ address: device.address, credential: null, timeouts: FAST_TIMEOUTS }, directTools());
    assert.equal(out.authStatus, 'unauthorized');
    assert.equal(out.serverVersion, device.config.firmwareVersion);
    assert.equal(device.counters().authFailures, 0);
  });

  it('chooses TLS when the probe found only the TLS port open', async () => {
    const device = fleet.devices[7]!;
    const out = await interrogate({ address: device.address, openPorts: [16993, 623], credential: ALT_ADMIN, timeouts: FAST_TIMEOUTS }, directTools());
    assert.deepEqual([out.authStatus, out.tls, out.port], ['ok', true, 16993]);
    assert.match(out.tlsFingerprint ?? '', /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });

  it('returns malformed input as a structured error instead of throwing', async () => {
    const out = await interrogate({ address: 'not-an-ip', credential: ADMIN }, directTools());
    assert.equal(out.authStatus, 'error');
    assert.equal(out.error?.code, 'AMT_ERR_INVALID_INPUT');
  });

  it('is structured-clone-able', async () => {
    const out = await interrogate({ address: fleet.devices[4]!.address, credential: ADMIN, timeouts: FAST_TIMEOUTS }, directTools());
    assert.deepEqual(structuredClone(out), out);
  });
});

describe('wsman-check', () => {
  it('signs in and reads the three scan items', async () => {
    const device = fleet.devices[4]!;
    const out = await wsmanCheck({ address: device.address, credential: ADMIN, timeouts: FAST_TIMEOUTS }, directTools());
    noSecrets(out);
    assert.equal(out.reachable, true);
    assert.equal(out.authenticated, true);
    assert.deepEqual([out.port, out.tls, out.hostname, out.provisioningState], [16992, false, device.config.hostname, 'POST']);
    assert.equal(out.error, undefined);
  });
  it('without a credential reports reachability and the Server version', async () => {
    const device = fleet.devices[4]!;
    const out = await wsmanCheck({ address: device.address, timeouts: FAST_TIMEOUTS }, directTools());
    assert.deepEqual([out.reachable, out.authenticated, out.serverVersion], [true, false, device.config.firmwareVersion]);
  });
  it('falls back to the TLS port and reports an unreachable address', async () => {
    const tlsDevice = fleet.devices[7]!;
    const out = await wsmanCheck({ address: tlsDevice.address, credential: ALT_ADMIN, timeouts: FAST_TIMEOUTS }, directTools());
    assert.deepEqual([out.reachable, out.port, out.tls, out.authenticated], [true, 16993, true, true]);
    const none = await wsmanCheck({ address: '127.20.7.200', credential: ADMIN, timeouts: FAST_TIMEOUTS }, directTools());
    assert.deepEqual([none.reachable, none.port, none.error?.code], [false, null, 'AMT_ERR_CONNECT']);
  });
});
