import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startFleet, type Fleet } from '../sim/fleet.js';
import wsmanCheck from '../../workers/tasks/wsman-check.js';
import interrogate from '../../workers/tasks/interrogate.js';
import { classifyTransportError } from '../../workers/amt/transport-errors.js';
import { tlsConnectOptions } from '../../workers/amt/tls-pinning.js';
import { ADMIN, directTools } from './helpers.js';

const TIMEOUTS = { connectMs: 2_000, firstByteMs: 5_000, totalMs: 10_000 };

async function tls11Fleet(base: string, max: 'TLSv1' | 'TLSv1.1' = 'TLSv1.1'): Promise<Fleet> {
  return startFleet({ count: 1, base, rmcpPort: 0, tlsEvery: 1, tlsMaxVersion: max, seed: `legacy-${base}` });
}

test('a TLS port that accepts TCP but never completes the handshake is reported as a TLS handshake timeout, reachable', async () => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.114.1.1', resolve));
  const { port } = silent.address() as AddressInfo;
  try {
    const out = await wsmanCheck({ address: '127.114.1.1', ports: { http: 0, https: port }, timeouts: { connectMs: 300, firstByteMs: 1_000, totalMs: 3_000 } }, directTools());
    assert.equal(out.reachable, true, 'the port accepted TCP');
    assert.equal(out.tls, true);
    assert.equal(out.error?.code, 'AMT_ERR_TIMEOUT');
    assert.equal(out.error?.phase, 'tls-handshake');
    assert.match(out.error?.message ?? '', /TLS handshake with 127\.114\.1\.1:\d+ timed out/);
    assert.ok(sockets.size >= 1);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
});

test('without legacy TLS a TLS 1.1-only device is refused with an error naming the cause, and its firmware version is still learned', async () => {
  const fleet = await tls11Fleet('127.114.2.1');
  const device = fleet.devices[0]!;
  try {
    const check = await wsmanCheck({ address: device.address, credential: ADMIN, timeouts: TIMEOUTS }, directTools());
    assert.equal(check.authenticated, false);
    assert.equal(check.reachable, true);
    assert.equal(check.error?.code, 'AMT_ERR_TLS');
    assert.equal(check.error?.tlsVersion, 'TLSv1.1');
    assert.match(check.error?.message ?? '', /the device offers only TLS 1\.1; enable the devices plugin's legacyTls/);
    assert.equal(check.serverVersion, device.config.firmwareVersion, 'the Server header of the credential-free probe');
    const before = device.counters();
    const scan = await interrogate({ address: device.address, openPorts: [16993], credential: ADMIN, timeouts: TIMEOUTS }, directTools());
    assert.equal(scan.authStatus, 'error');
    assert.match(scan.error?.message ?? '', /offers only TLS 1\.1; enable the devices plugin's legacyTls/);
    assert.equal(scan.serverVersion, device.config.firmwareVersion);
    assert.equal(scan.tlsFingerprint, device.certificateFingerprint);
    assert.equal(device.counters().unauthorized - before.unauthorized, 1, 'only the anonymous probe reached the device, once');
    assert.equal(device.lockedOut, false);
  } finally {
    await fleet.stop();
  }
});

test('with legacy TLS a TLS 1.0 or 1.1-only device is read, and the task reports the old protocol', async () => {
  for (const [base, version] of [['127.114.3.1', 'TLSv1.1'], ['127.114.4.1', 'TLSv1']] as const) {
    const fleet = await tls11Fleet(base, version);
    const device = fleet.devices[0]!;
    try {
      const tlsTrust = { mode: 'tofu' as const, legacyTls: true };
      const check = await wsmanCheck({ address: device.address, credential: ADMIN, timeouts: TIMEOUTS, tlsTrust }, directTools());
      assert.equal(check.error, undefined, JSON.stringify(check.error));
      assert.equal(check.authenticated, true);
      assert.equal(check.hostname, device.config.hostname);
      assert.equal(check.tlsProtocol, version);
      const scan = await interrogate({ address: device.address, openPorts: [16993], credential: ADMIN, timeouts: TIMEOUTS, tlsTrust }, directTools());
      assert.equal(scan.authStatus, 'ok', JSON.stringify(scan.error));
      assert.equal(scan.uuid?.toLowerCase(), device.config.uuid.toLowerCase());
      assert.equal(scan.tlsProtocol, version);
    } finally {
      await fleet.stop();
    }
  }
});

test("a device without secure renegotiation is refused with an error naming the devices plugin's legacyTls", () => {
  const error = Object.assign(new Error('unsafe legacy renegotiation disabled'), { code: 'ERR_SSL_UNSAFE_LEGACY_RENEGOTIATION_DISABLED' });
  const failure = classifyTransportError(error, '127.114.5.1:16993', false);
  assert.equal(failure.code, 'AMT_ERR_TLS');
  assert.match(failure.message, /does not support secure renegotiation .*; enable the devices plugin's legacyTls/);
  assert.equal(failure.detail.cause, 'ERR_SSL_UNSAFE_LEGACY_RENEGOTIATION_DISABLED');
  assert.ok(tlsConnectOptions({ mode: 'tofu', legacyTls: true }).secureOptions! & constants.SSL_OP_LEGACY_SERVER_CONNECT, 'legacy TLS allows such servers');
  assert.equal(tlsConnectOptions({ mode: 'tofu' }).secureOptions, undefined);
});
