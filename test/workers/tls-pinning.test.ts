/** TLS to self-signed devices: trust on first use, pinning, a changed certificate, strict CA mode. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import interrogate from '../../workers/tasks/interrogate.js';
import { certificatePair, startFleet, type Fleet } from '../sim/index.js';
import { ADMIN, directTools, FAST_TIMEOUTS, powerRead } from './helpers.js';

let fleet: Fleet;
before(async () => {
  fleet = await startFleet({ count: 3, base: '127.20.2.1', rmcpPort: 0, tlsEvery: 1, seed: 'tls' });
});
after(() => fleet?.stop());

const base = { credential: ADMIN, timeouts: FAST_TIMEOUTS, tls: true as const };

describe('trust on first use', () => {
  it('reports the certificate fingerprint on first contact', async () => {
    const device = fleet.devices[0]!;
    const out = await interrogate({ ...base, address: device.address }, directTools());
    assert.equal(out.authStatus, 'ok');
    assert.equal(out.tls, true);
    assert.equal(out.port, 16993);
    assert.equal(out.tlsFingerprint, certificatePair('a').fingerprint256);
    assert.equal(out.hostname, device.config.hostname);
  });

  it('accepts the pinned certificate, in any fingerprint spelling', async () => {
    const device = fleet.devices[0]!;
    const pin = certificatePair('a').fingerprint256.replace(/:/g, '').toLowerCase();
    const out = await interrogate({ ...base, address: device.address, pinnedFingerprint: pin }, directTools());
    assert.equal(out.authStatus, 'ok');
  });

  it('refuses a changed certificate before sending credentials, and accepts it once the pin is reset', async () => {
    const device = fleet.devices[1]!;
    const pinned = certificatePair('a').fingerprint256;
    device.setCertificate('b');
    device.resetCounters();
    const out = await interrogate({ ...base, address: device.address, pinnedFingerprint: pinned }, directTools());
    assert.equal(out.authStatus, 'error');
    assert.equal(out.error?.code, 'AMT_ERR_TLS_PIN_MISMATCH');
    assert.equal(out.error?.expectedFingerprint, pinned);
    assert.equal(out.error?.observedFingerprint, certificatePair('b').fingerprint256);
    assert.equal(out.tlsFingerprint, certificatePair('b').fingerprint256);
    assert.equal(device.counters().requests, 0, 'no request may reach a device with the wrong certificate');

    const target = { address: device.address, port: 16993, tls: true, timeouts: FAST_TIMEOUTS, pinnedFingerprint: pinned };
    const power = await powerRead({ target, credential: ADMIN }, directTools());
    assert.equal(power.ok, false);
    assert.equal(!power.ok && power.error.code, 'AMT_ERR_TLS_PIN_MISMATCH');

    const reset = await interrogate({ ...base, address: device.address, pinnedFingerprint: null }, directTools());
    assert.equal(reset.authStatus, 'ok');
    assert.equal(reset.tlsFingerprint, certificatePair('b').fingerprint256);
  });
});

describe('strict CA validation', () => {
  it('refuses a self-signed certificate the site does not trust', async () => {
    const out = await interrogate({ ...base, address: fleet.devices[2]!.address, tlsTrust: { mode: 'ca' } }, directTools());
    assert.equal(out.authStatus, 'error');
    assert.equal(out.error?.code, 'AMT_ERR_TLS');
  });
  it('accepts a certificate that chains to the configured CA', async () => {
    const out = await interrogate({ ...base, address: fleet.devices[2]!.address, tlsTrust: { mode: 'ca', caPem: certificatePair('a').cert } }, directTools());
    assert.equal(out.authStatus, 'ok');
    assert.equal(out.tlsFingerprint, certificatePair('a').fingerprint256);
  });
});
