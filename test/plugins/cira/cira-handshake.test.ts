import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect as netConnect } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { CiraTunnelEvent } from '../../../plugins/cira/api.js';
import { encode } from '../../sim/cira-apf.js';
import { RawDevice, startCiraServer, uuidOf, type TestCiraServer } from './cira-test-kit.js';
import { until } from '../../helpers/poll.js';

describe('cira server: handshake, sign-in and replacement', () => {
  let cira: TestCiraServer;
  const events: CiraTunnelEvent[] = [];

  before(async () => {
    // Forwards settle after 400 ms of quiet: a device on a loaded machine may take longer than a short
    // settle between two forwards, and the keep-alive options would then come before its second forward's reply.
    cira = await startCiraServer({ keepAliveIntervalSeconds: 7, keepAliveTimeoutSeconds: 11, forwardSettleMs: 400, authThrottle: { freeFailures: 1, delayStepMs: 600 } });
    cira.server.service.onTunnel((event) => events.push(event));
  });
  after(() => cira.close());

  it('announces a signed-in device up with its UUID and forwards, sends the keep-alive options and echoes keep-alives', async () => {
    const device = await RawDevice.connect(cira.port, '127.0.20.1');
    await device.handshake(uuidOf(1), [16993, 16992]);
    const options = await device.next((m) => m.type === 'keepalive-options-request');
    assert.deepEqual(options, { type: 'keepalive-options-request', interval: 7, timeout: 11 });
    await until('tunnel up', () => events.some((e) => e.type === 'up' && e.connection.uuid === uuidOf(1)), 2000);
    const up = events.find((e) => e.type === 'up' && e.connection.uuid === uuidOf(1))!;
    assert.equal(up.connection.deviceId, uuidOf(1));
    assert.equal(up.connection.remoteAddress, '127.0.20.1');
    assert.deepEqual([...up.connection.forwardedPorts].sort(), [16992, 16993]);
    assert.equal(up.connection.username, 'mps-user');

    device.send(encode.keepAliveRequest(0xdeadbeef));
    assert.deepEqual(await device.next((m) => m.type === 'keepalive-reply'), { type: 'keepalive-reply', cookie: 0xdeadbeef });
    const listed = cira.server.service.connection(uuidOf(1));
    assert.ok(listed?.lastKeepAliveAt, 'the keep-alive is recorded');
    device.destroy();
    await until('tunnel down', () => events.some((e) => e.type === 'down' && e.connection.uuid === uuidOf(1)), 2000);
    assert.equal(cira.server.service.connection(uuidOf(1)), undefined);
  });

  it('answers a wrong password with USERAUTH_FAILURE, closes the socket and never lists the device', async () => {
    const device = await RawDevice.connect(cira.port, '127.0.20.2');
    const answer = await device.signIn(uuidOf(2), 'mps-user', 'not-the-password');
    assert.equal(answer?.type, 'userauth-failure');
    await device.closed;
    const unknownUser = await RawDevice.connect(cira.port, '127.0.20.3');
    assert.equal((await unknownUser.signIn(uuidOf(3), 'nobody', 'whatever-password'))?.type, 'userauth-failure');
    await unknownUser.closed;
    assert.equal(cira.server.service.connections().some((c) => c.uuid === uuidOf(2) || c.uuid === uuidOf(3)), false);
    assert.ok(!cira.logs.some((line) => line.includes('not-the-password')), 'no password in the logs');
  });

  it('slows down repeated failures from one address but still lets a right password in', async () => {
    const attempt = async (address: string, password: string) => {
      const device = await RawDevice.connect(cira.port, address);
      const started = Date.now();
      const answer = await device.signIn(uuidOf(4), 'mps-user', password);
      const elapsed = Date.now() - started;
      device.destroy();
      return { answer: answer?.type, elapsed };
    };
    await attempt('127.0.20.4', 'wrong-1');
    await attempt('127.0.20.4', 'wrong-2');
    const third = await attempt('127.0.20.4', 'wrong-3');
    assert.equal(third.answer, 'userauth-failure');
    assert.ok(third.elapsed >= 580, `third failure answered after ${third.elapsed} ms`);
    const elsewhere = await attempt('127.0.20.5', 'wrong-1');
    assert.ok(elsewhere.elapsed < 580, `another address is not slowed (${elsewhere.elapsed} ms)`);
    const right = await attempt('127.0.20.4', 'mps-password-1');
    assert.equal(right.answer, 'userauth-success');
  });

  it('replaces the tunnel of a UUID that connects again: down (replaced) for the old, then up for the new', async () => {
    const first = await RawDevice.connect(cira.port, '127.0.20.6');
    await first.handshake(uuidOf(6));
    await until('first up', () => cira.server.service.connection(uuidOf(6))?.remoteAddress === '127.0.20.6', 2000);
    const mark = events.length;
    const second = await RawDevice.connect(cira.port, '127.0.20.7');
    await second.handshake(uuidOf(6));
    await until('second up', () => cira.server.service.connection(uuidOf(6))?.remoteAddress === '127.0.20.7', 2000);
    await first.closed;
    const later = events.slice(mark).filter((e) => e.connection.uuid === uuidOf(6));
    assert.deepEqual(later.map((e) => [e.type, e.type === 'down' ? e.reason : null, e.connection.remoteAddress]), [
      ['down', 'replaced', '127.0.20.6'],
      ['up', null, '127.0.20.7'],
    ]);
    assert.equal(cira.server.service.connections().filter((c) => c.uuid === uuidOf(6)).length, 1);
    second.destroy();
  });

  it('drops a tunnel on request with an APF DISCONNECT', async () => {
    const device = await RawDevice.connect(cira.port, '127.0.20.8');
    await device.handshake(uuidOf(8));
    await until('up', () => cira.server.service.connection(uuidOf(8)) !== undefined, 2000);
    assert.equal(cira.server.service.drop(uuidOf(8)), true);
    assert.equal((await device.next((m) => m.type === 'disconnect'))?.type, 'disconnect');
    await device.closed;
    assert.ok(events.some((e) => e.type === 'down' && e.reason === 'dropped' && e.connection.uuid === uuidOf(8)));
    assert.equal(cira.server.service.drop(uuidOf(8)), false);
  });

  it('settles at once when port 5900 is forwarded, without waiting for quiet', async () => {
    const slow = await startCiraServer({ forwardSettleMs: 5000 });
    try {
      const device = await RawDevice.connect(slow.port, '127.0.20.9');
      await device.handshake(uuidOf(9), [16993, 16992, 5900]);
      const options = await device.next((m) => m.type === 'keepalive-options-request', 1000);
      assert.equal(options?.type, 'keepalive-options-request');
      device.destroy();
    } finally {
      await slow.close();
    }
  });

  it('refuses TLS 1.1 by default and accepts it when tls.minVersion allows old firmware', async () => {
    const handshake = (port: number) =>
      new Promise<string>((resolve) => {
        const socket = connectTls({ host: '127.0.0.1', port, rejectUnauthorized: false, maxVersion: 'TLSv1.1', minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' }, () => {
          resolve(socket.getProtocol() ?? 'none');
          socket.destroy();
        });
        socket.once('error', () => resolve('refused'));
      });
    assert.equal(await handshake(cira.port), 'refused');
    const legacy = await startCiraServer({ tls: { minVersion: 'TLSv1' } });
    try {
      assert.equal(await handshake(legacy.port), 'TLSv1.1');
      // Old firmware's tunnel works end to end.
      const device = await RawDevice.connect(legacy.port, '127.0.20.11', { maxVersion: 'TLSv1.1', minVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' });
      await device.handshake(uuidOf(211));
      await until('legacy tunnel up', () => legacy.server.service.connection(uuidOf(211)) !== undefined, 3000);
      device.destroy();
    } finally {
      await legacy.close();
    }
  });

  it('closes promptly with devices mid-handshake and deaf devices connected', async () => {
    const closing = await startCiraServer({ authTimeoutSeconds: 60 });
    const raw = netConnect({ host: '127.0.0.1', port: closing.port, localAddress: '127.0.20.10' });
    raw.on('error', () => undefined);
    await new Promise((resolve) => raw.once('connect', resolve));
    const deaf = await RawDevice.connect(closing.port, '127.0.20.11');
    deaf.socket.pause();
    const started = Date.now();
    await closing.close();
    assert.ok(Date.now() - started < 1500, `closed in ${Date.now() - started} ms`);
    raw.destroy();
    deaf.destroy();
  });
});
