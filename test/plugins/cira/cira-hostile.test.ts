import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { CiraTunnelEvent } from '../../../plugins/cira/api.js';
import { encode } from '../../sim/cira-apf.js';
import { RawDevice, startCiraServer, uuidOf, type TestCiraServer } from './cira-test-kit.js';
import { until } from '../../helpers/poll.js';

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

describe('cira server: deadlines and hostile input end one tunnel only', () => {
  let cira: TestCiraServer;
  const events: CiraTunnelEvent[] = [];

  before(async () => {
    cira = await startCiraServer({ authTimeoutSeconds: 1, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 1, forwardSettleMs: 20, maxMessageBytes: 4096 });
    cira.server.service.onTunnel((event) => events.push(event));
  });
  after(() => cira.close());

  /**
   * A device that stays up, sending keep-alives (cookie 0) within this suite's 1 s timeout, to prove
   * the others' troubles did not touch it.
   */
  async function bystander(n: number): Promise<RawDevice> {
    const device = await RawDevice.connect(cira.port, `127.0.21.${n}`);
    await device.handshake(uuidOf(100 + n));
    await until('bystander up', () => cira.server.service.connection(uuidOf(100 + n)) !== undefined, 2000);
    const keepAlive = setInterval(() => device.send(encode.keepAliveRequest(0)), 250);
    void device.closed.then(() => clearInterval(keepAlive));
    return device;
  }
  async function stillAnswers(device: RawDevice, cookie: number): Promise<void> {
    device.send(encode.keepAliveRequest(cookie));
    assert.deepEqual(await device.next((m) => m.type === 'keepalive-reply' && m.cookie === cookie), { type: 'keepalive-reply', cookie });
  }

  it('drops a device that has not authenticated within the auth timeout', async () => {
    const device = await RawDevice.connect(cira.port, '127.0.21.10');
    const started = Date.now();
    device.send(encode.protocolVersion(uuidOf(10)));
    await device.closed;
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 950 && elapsed < 2500, `dropped after ${elapsed} ms (auth timeout 1 s, sweep 0.1 s)`);
  });

  it('closes a silent tunnel within interval + timeout, while one that sends keep-alives stays', async () => {
    const talker = await bystander(11);
    const timer = setInterval(() => talker.send(encode.keepAliveRequest(1)), 250);
    try {
      const silent = await RawDevice.connect(cira.port, '127.0.21.12');
      await silent.handshake(uuidOf(12));
      const lastWord = Date.now();
      await silent.closed;
      const elapsed = Date.now() - lastWord;
      assert.ok(elapsed >= 950 && elapsed <= 2000, `silent tunnel closed after ${elapsed} ms (interval 1 s + timeout 1 s)`);
      await until('down event', () => events.some((e) => e.type === 'down' && e.reason === 'keepalive-timeout' && e.connection.uuid === uuidOf(12)), 1000);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      assert.ok(cira.server.service.connection(uuidOf(111)), 'the talking tunnel is still up');
    } finally {
      clearInterval(timer);
      talker.destroy();
    }
  });

  it('ends the tunnel of an unknown message type with DISCONNECT (protocol error); another tunnel keeps working', async () => {
    const other = await bystander(13);
    const bad = await RawDevice.connect(cira.port, '127.0.21.14');
    await bad.handshake(uuidOf(14));
    await until('up', () => cira.server.service.connection(uuidOf(14)) !== undefined, 2000);
    bad.send(Buffer.from([0x77, 1, 2, 3, 4, 5, 6, 7, 8]));
    assert.deepEqual(await bad.next((m) => m.type === 'disconnect'), { type: 'disconnect', reason: 2 });
    await bad.closed;
    await until('down', () => events.some((e) => e.type === 'down' && e.reason === 'protocol-error' && e.connection.uuid === uuidOf(14)), 1000);
    await stillAnswers(other, 77);
    other.destroy();
  });

  it('ends a tunnel whose message declares more bytes than the limit, before those bytes arrive', async () => {
    const other = await bystander(15);
    const bad = await RawDevice.connect(cira.port, '127.0.21.16');
    await bad.handshake(uuidOf(16));
    bad.send(Buffer.concat([Buffer.from([94]), u32(1), u32(0x7fff_ffff)]));
    await bad.closed;
    await stillAnswers(other, 78);
    other.destroy();
  });

  it('ends a tunnel that sends forwards before signing in (out of order)', async () => {
    const bad = await RawDevice.connect(cira.port, '127.0.21.17');
    bad.send(encode.protocolVersion(uuidOf(17)), encode.tcpipForward(16992));
    assert.deepEqual(await bad.next((m) => m.type === 'disconnect'), { type: 'disconnect', reason: 2 });
    await bad.closed;
    assert.ok(cira.logs.some((line) => line.includes('out-of-order')), 'logged as out of order');
  });

  it('closes a connection that sends bytes that are not TLS and keeps serving others', async () => {
    const socket = netConnect({ host: '127.0.0.1', port: cira.port, localAddress: '127.0.21.18' });
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n' + '\u0000'.repeat(64)));
    await new Promise((resolve) => socket.once('close', resolve));
    const other = await bystander(19);
    await stillAnswers(other, 79);
    other.destroy();
  });

  it('ignores channel messages for unknown channels and keeps the tunnel', async () => {
    const device = await bystander(20);
    device.send(encode.channelData(4242, Buffer.from('stray')), encode.windowAdjust(4243, 100), encode.channelClose(4244));
    await stillAnswers(device, 80);
    assert.ok(cira.server.stats().ignoredMessages >= 3);
    device.destroy();
  });

  it('refuses a channel the device opens itself (unknown type)', async () => {
    const device = await bystander(21);
    const field = (s: string) => Buffer.concat([u32(Buffer.byteLength(s)), Buffer.from(s)]);
    device.send(Buffer.concat([Buffer.from([90]), field('direct-tcpip'), u32(7), u32(4096), u32(0xffffffff), field('127.0.0.1'), u32(80), field('127.0.0.1'), u32(1234)]));
    assert.deepEqual(await device.next((m) => m.type === 'channel-open-failure'), { type: 'channel-open-failure', recipient: 7, reason: 3 });
    await stillAnswers(device, 81);
    device.destroy();
  });

  it('ends a tunnel whose device sends requests but does not read the answers', async () => {
    const other = await bystander(23);
    const greedy = await RawDevice.connect(cira.port, '127.0.21.24');
    await greedy.handshake(uuidOf(24));
    greedy.socket.pause();
    const burst = Buffer.concat(Array.from({ length: 800 }, (_, i) => encode.keepAliveRequest(i)));
    for (let i = 0; i < 2000; i++) {
      greedy.socket.write(burst);
      if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await until('the server gives up on the tunnel', () => cira.logs.some((line) => line.includes('not-reading')), 5000);
    greedy.socket.resume();
    await greedy.closed;
    await stillAnswers(other, 82);
    other.destroy();
  });

  it('parses a handshake that arrives one byte per TLS record', async () => {
    const device = await RawDevice.connect(cira.port, '127.0.21.22');
    const bytes = Buffer.concat([encode.protocolVersion(uuidOf(22)), encode.serviceRequest('auth@amt.intel.com')]);
    for (const byte of bytes) {
      device.socket.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal((await device.next((m) => m.type === 'service-accept'))?.type, 'service-accept');
    device.destroy();
  });
});
